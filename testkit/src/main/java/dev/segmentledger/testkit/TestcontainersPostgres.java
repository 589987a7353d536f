package dev.segmentledger.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * PostgreSQL in a Docker container through Testcontainers, used only when Docker is likely
 * present. Asking Testcontainers on a machine without Docker is slow and logs errors, so a cheap
 * look for a Docker endpoint comes first. The container is stopped by a shutdown hook (and by
 * Testcontainers' own reaper).
 */
final class TestcontainersPostgres {
  static final String DOCKER_PROPERTY = "segmentledger.test.docker";
  static final String IMAGE_PROPERTY = "segmentledger.test.postgres-image";
  private static final String DEFAULT_IMAGE = "postgres:16-alpine";

  private TestcontainersPostgres() {}

  static Optional<PostgresServer> startIfDockerAvailable() {
    if ("false".equalsIgnoreCase(System.getProperty(DOCKER_PROPERTY)) || !dockerEndpointLikely()
        || !testcontainersPresent() || !DockerClientFactory.instance().isDockerAvailable()) {
      return Optional.empty();
    }
    String image = System.getProperty(IMAGE_PROPERTY, DEFAULT_IMAGE);
    PostgreSQLContainer container = new PostgreSQLContainer(
        DockerImageName.parse(image).asCompatibleSubstituteFor("postgres"));
    container.start();
    Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "segment-ledger-pg-container-stop"));
    return Optional.of(new PostgresServer("Testcontainers " + image + " (" + container.getContainerId() + ")",
        container.getJdbcUrl(), container.getUsername(), container.getPassword()));
  }

  private static boolean dockerEndpointLikely() {
    if (System.getenv("DOCKER_HOST") != null) {
      return true;
    }
    String home = System.getProperty("user.home", "");
    String runtimeDir = System.getenv().getOrDefault("XDG_RUNTIME_DIR", "/nonexistent");
    return List.of(Path.of("/var/run/docker.sock"), Path.of(home, ".docker", "run", "docker.sock"),
            Path.of(home, ".docker", "desktop", "docker.sock"), Path.of(home, ".colima", "default", "docker.sock"),
            Path.of(home, ".rd", "docker.sock"), Path.of(runtimeDir, "docker.sock"),
            Path.of(runtimeDir, "podman", "podman.sock"), Path.of(home, ".testcontainers.properties"))
        .stream().anyMatch(Files::exists);
  }

  private static boolean testcontainersPresent() {
    try {
      Class.forName("org.testcontainers.DockerClientFactory", false, TestcontainersPostgres.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
