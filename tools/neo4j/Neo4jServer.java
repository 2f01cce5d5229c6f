import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.server.configuration.ServerSettings;

/**
 * Neo4j Community for the tests: the harness's in-process server on loopback, Bolt and HTTP
 * (with Neo4j Browser at /browser), authentication off, data under the given folder.
 *
 * Usage: java -cp CLASSPATH Neo4jServer.java DATA_DIR BOLT_PORT HTTP_PORT
 * It writes DATA_DIR/ready once Bolt answers, and stops cleanly on SIGTERM.
 */
public class Neo4jServer {
    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]).toAbsolutePath();
        int boltPort = Integer.parseInt(args[1]);
        int httpPort = Integer.parseInt(args[2]);
        Files.createDirectories(data);
        Path ready = data.resolve("ready");
        Files.deleteIfExists(ready);

        Neo4j server = Neo4jBuilders.newInProcessBuilder(data)
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", boltPort))
                .withConfig(HttpConnector.enabled, true)
                .withConfig(HttpConnector.listen_address, new SocketAddress("127.0.0.1", httpPort))
                .withConfig(GraphDatabaseSettings.auth_enabled, false)
                // Nothing leaves the machine: no usage reports, no Browser telemetry or remote guides.
                .withConfig(GraphDatabaseSettings.udc_enabled, false)
                .withConfig(ServerSettings.allow_telemetry, false)
                .withConfig(ServerSettings.browser_remote_content_hostname_whitelist, "")
                // A test database: a small page cache leaves the machine's memory to the tests.
                .withConfig(GraphDatabaseSettings.pagecache_memory, 128L * 1024 * 1024)
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }));
        Files.writeString(ready, server.boltURI() + " " + server.httpURI() + "\n");
        System.out.println("Neo4j " + server.boltURI() + " " + server.httpURI() + "/browser/");
        System.out.flush();
        stopped.await();
    }
}
