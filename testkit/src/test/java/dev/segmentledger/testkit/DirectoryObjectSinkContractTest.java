package dev.segmentledger.testkit;

import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.testkit.contract.ObjectSinkContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class DirectoryObjectSinkContractTest extends ObjectSinkContract {
  @TempDir Path root;

  @Override
  protected ObjectSink newSink() {
    return new DirectoryObjectSink(root);
  }
}
