package dev.segmentledger.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.testkit.PostgresExtension;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The endpoint's operations on real rows (embedded PostgreSQL) and a real bucket (S3Proxy). */
class SegmentLedgerEndpointTest {
  @RegisterExtension static final PostgresExtension POSTGRES = PostgresExtension.create();
  @RegisterExtension static final InProcessS3 s3 = new InProcessS3();
  @TempDir static Path temp;

  @Test
  @SuppressWarnings("unchecked")
  void listsPagesFiltersReportsAndReopens() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root"));
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SegmentLedgerAutoConfiguration.class,
            SegmentLedgerRuntimeAutoConfiguration.class, SegmentLedgerActuatorAutoConfiguration.class))
        .withBean(DataSource.class, POSTGRES::dataSource)
        .withPropertyValues(s3.properties())
        .withPropertyValues("segment-ledger.allowed-root=" + root, "segment-ledger.migrate=true",
            "segment-ledger.endpoint.reopen-enabled=true", "management.endpoints.web.exposure.include=segmentledger")
        .run(context -> {
          assertThat(context).hasNotFailed();
          Ledger ledger = context.getBean(Ledger.class);
          SegmentLedgerReopenEndpoint endpoint = context.getBean(SegmentLedgerReopenEndpoint.class);
          for (int i = 0; i < 2; i++) {
            ItemId id = ItemId.original("ep-b1", "720p", i);
            ledger.register(id, Files.writeString(root.resolve("ok-" + i + ".ts"), "segment " + i));
            SegmentLedgerAutoConfigurationTest.awaitState(ledger, id, ItemState.CONFIRMED);
          }
          for (int i = 10; i < 13; i++) {
            ItemId id = ItemId.original("ep-b1", "720p", i);
            ledger.register(id, Files.writeString(temp.resolve("outside-" + i + ".ts"), "not for upload"));
            SegmentLedgerAutoConfigurationTest.awaitState(ledger, id, ItemState.REJECTED);
          }
          ledger.register(ItemId.original("ep-b2", "720p", 0), Files.writeString(temp.resolve("other.ts"), "x"));

          Map<String, Object> first = endpoint.rows("ep-b1", null, null, null, 2, null, null);
          List<Map<String, Object>> items = (List<Map<String, Object>>) first.get("items");
          assertThat(items).hasSize(2).allSatisfy(row -> {
            assertThat(row.get("state")).isEqualTo("rejected");
            assertThat(row.get("reason")).isEqualTo("outside_root");
            assertThat(row.get("broadcast")).isEqualTo("ep-b1");
          });
          assertThat(items).extracting(r -> r.get("sequence")).containsExactly(12L, 11L);
          Long next = (Long) first.get("next");
          assertThat(next).isNotNull();
          Map<String, Object> second = endpoint.rows("ep-b1", null, null, null, 2, null, next);
          assertThat((List<Map<String, Object>>) second.get("items")).extracting(r -> r.get("sequence"))
              .containsExactly(10L);
          assertThat(second.get("next")).isNull();

          assertThat((List<?>) endpoint.rows("ep-b1", "original", "confirmed", null, null, "oldest_first", null)
              .get("items")).hasSize(2);
          assertThat((List<?>) endpoint.rows(null, null, null, "outside_root,missing_file", 100, null, null)
              .get("items")).hasSize(4);
          assertThat((List<?>) endpoint.rows("ep-b1", "playback", null, null, null, null, null).get("items")).isEmpty();
          assertThatThrownBy(() -> endpoint.rows(null, "sideways", null, null, null, null, null))
              .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("axis must be one of");
          assertThatThrownBy(() -> endpoint.rows(null, null, null, null, 0, null, null))
              .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("limit");

          Map<String, Object> status = endpoint.broadcast("ep-b1");
          assertThat(status.get("broadcast")).isEqualTo("ep-b1");
          assertThat(status.get("unconfirmed")).isEqualTo(0L);
          assertThat((Map<String, Map<String, Long>>) status.get("counts"))
              .extractingByKey("original").satisfies(c -> {
                assertThat(c.get("confirmed")).isEqualTo(2L);
                assertThat(c.get("rejected")).isEqualTo(3L);
              });

          Map<String, Object> report = endpoint.reconcile("ep-b1", "reconcile", null, null, null, null);
          assertThat(report.get("consistentSoFar")).isEqualTo(true);
          assertThat(report.get("complete")).isEqualTo(true);
          assertThat(report.get("rowsChecked")).isEqualTo(2L);
          assertThat((List<?>) report.get("differences")).isEmpty();
          s3.client().deleteObject(b -> b.bucket(InProcessS3.BUCKET).key(ItemId.original("ep-b1", "720p", 0).objectKey()));
          Map<String, Object> firstStep = endpoint.reconcile("ep-b1", "reconcile", 1, 10, null, null);
          assertThat(firstStep.get("stoppedBy")).isEqualTo("check_limit");
          assertThat(firstStep.get("rowsChecked")).isEqualTo(1L);
          assertThat((List<Map<String, Object>>) firstStep.get("differences")).singleElement()
              .satisfies(d -> assertThat(d.get("kind")).isEqualTo("object_missing"));
          Map<String, Object> secondStep = endpoint.reconcile("ep-b1", "reconcile", 1, 10,
              (String) firstStep.get("next"), null);
          assertThat(secondStep.get("rowsChecked")).isEqualTo(1L);
          assertThat(ledger.find(ItemId.original("ep-b1", "720p", 0)).orElseThrow().state())
              .as("a report only: nothing re-opened").isEqualTo(ItemState.CONFIRMED);
          assertThatThrownBy(() -> endpoint.reconcile("ep-b1", "repair", null, null, null, null))
              .isInstanceOf(InvalidEndpointRequestException.class);
          assertThatThrownBy(() -> endpoint.reconcile("ep-b1", "reconcile", 0, null, null, null))
              .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("between 1 and 100000");
          assertThatThrownBy(() -> endpoint.reconcile("ep-b1", "reconcile", null, 3600, null, null))
              .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("at most 600 s");
          assertThatThrownBy(() -> endpoint.reconcile("ep-b1", "reconcile", null, null, "rows:x", null))
              .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("rows:<row id>");
          assertThatThrownBy(() -> endpoint.broadcastRows("ep-b1", "reconcile", null, null, null, null, null, null))
              .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("is a POST");
          Map<String, Object> repaired = endpoint.reconcile("ep-b1", "reconcile", null, null, null, true);
          assertThat(repaired.get("reopened")).isEqualTo(1);

          Map<String, Object> rowsOfB1 = endpoint.broadcastRows("ep-b1", "rows", null, null, null, 3, null, null);
          assertThat((List<Map<String, Object>>) rowsOfB1.get("items")).extracting(r -> r.get("sequence"))
              .containsExactly(0L, 1L, 10L);
          assertThat((List<?>) endpoint.broadcastRows("ep-b1", "rows", null, null, null, 3, null,
              (Long) rowsOfB1.get("next")).get("items")).hasSize(2);
          assertThatThrownBy(() -> endpoint.broadcastRows("ep-b1", "rows", null, null, null, 10_001, null, null))
              .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("between 1 and 10000");
          assertThatThrownBy(() -> endpoint.broadcastRows("../x", "rows", null, null, null, null, null, null))
              .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("[A-Za-z0-9._-]");

          ItemId longError = ItemId.original("ep-b3", "720p", 0);
          ledger.register(longError, Files.writeString(temp.resolve("x".repeat(230) + ".ts"), "outside"));
          SegmentLedgerAutoConfigurationTest.awaitState(ledger, longError, ItemState.REJECTED);
          String shown = (String) ((List<Map<String, Object>>) endpoint.rows("ep-b3", null, null, null, null, null, null)
              .get("items")).get(0).get("lastError");
          assertThat(shown).matches("(?s).{200}\\.\\.\\.\\[\\+[0-9]+ characters\\]");

          Map<String, Object> reopened = endpoint.reopen("ep-b1", "outside_root", null, null, null);
          assertThat(reopened.get("reopened")).isEqualTo(3);
          Map<String, Object> one = endpoint.reopen("ep-b2", null, "original", "720p", 0L);
          assertThat(one.get("reopened")).isIn(0, 1);
          assertThatThrownBy(() -> endpoint.reopen("ep-b1", null, null, null, null))
              .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("give reason");
        });
  }

  /**
   * A rows page is bounded in time: a filter no row matches walks a large ledger, and an open
   * transaction holding the table's ACCESS EXCLUSIVE lock stands in for that walk here (a statement
   * timeout counts the wait for a lock as it counts a scan). The endpoint answers, after its bound,
   * 503 (the server did not answer in time, not a bad request) with what to narrow.
   */
  @Test
  void aRowsPageThatOutlastsItsBoundIsA503WithWhatToNarrow() throws Exception {
    Path root = Files.createDirectories(temp.resolve("bounded-root"));
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SegmentLedgerAutoConfiguration.class,
            SegmentLedgerRuntimeAutoConfiguration.class, SegmentLedgerActuatorAutoConfiguration.class))
        .withBean(DataSource.class, POSTGRES::dataSource)
        .withPropertyValues(s3.properties())
        .withPropertyValues("segment-ledger.allowed-root=" + root, "segment-ledger.migrate=true",
            "management.endpoints.web.exposure.include=segmentledger")
        .run(context -> {
          assertThat(context).hasNotFailed();
          SegmentLedgerEndpoint endpoint = context.getBean(SegmentLedgerEndpoint.class);
          try (Connection walker = POSTGRES.dataSource().getConnection(); Statement statement = walker.createStatement()) {
            walker.setAutoCommit(false);
            statement.execute("LOCK TABLE segment_ledger_item IN ACCESS EXCLUSIVE MODE");
            try {
              WebEndpointResponse<Map<String, Object>> page = assertTimeoutPreemptively(Duration.ofSeconds(20),
                  () -> endpoint.rowsOperation(null, null, "confirmed", null, null, null, null));
              assertThat(page.getStatus()).as("the server did not answer in time: 503, as the console answers")
                  .isEqualTo(503);
              assertThat((String) page.getBody().get("message")).contains("took longer than").contains("narrow");
              WebEndpointResponse<Map<String, Object>> broadcastPage = assertTimeoutPreemptively(
                  Duration.ofSeconds(20), () -> endpoint.broadcastRowsOperation("ep-b1", "rows", null, null, null,
                      null, null, null));
              assertThat(broadcastPage.getStatus()).isEqualTo(503);
            } finally {
              walker.rollback();
            }
          }
        });
  }

}
