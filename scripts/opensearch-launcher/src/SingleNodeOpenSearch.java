// Runs one embedded OpenSearch node on 127.0.0.1 for litsearch's development and tests: announces readiness in a file, stops cleanly on SIGTERM.
// Alone by default (discovery.type single-node); with --seed-hosts it joins the other nodes listed there into one cluster
// (the two-node failure test starts two such processes, each with its own home, http and transport port).

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;

import org.codelibs.opensearch.runner.OpenSearchRunner;
import org.opensearch.cluster.health.ClusterHealthStatus;
import org.opensearch.common.settings.Settings;
import org.opensearch.http.HttpServerTransport;

public final class SingleNodeOpenSearch {

    private static final String KNN_PLUGIN = "org.opensearch.knn.plugin.KNNPlugin";

    private SingleNodeOpenSearch() {
    }

    private static boolean onClassPath(final String className) {
        try {
            Class.forName(className, false, SingleNodeOpenSearch.class.getClassLoader());
            return true;
        } catch (final ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    public static void main(final String[] args) throws Exception {
        int httpPort = 0;
        Path home = null;
        Path readyFile = null;
        String clusterName = "litsearch";
        String nodeName = null;
        String transportPort = null;
        List<String> seedHosts = List.of();
        List<String> initialManagers = List.of();
        for (int i = 0; i < args.length; i++) {
            final String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--http-port": httpPort = Integer.parseInt(required(args[i], value)); i++; break;
                case "--home": home = Paths.get(required(args[i], value)).toAbsolutePath(); i++; break;
                case "--ready-file": readyFile = Paths.get(required(args[i], value)).toAbsolutePath(); i++; break;
                case "--cluster-name": clusterName = required(args[i], value); i++; break;
                case "--node-name": nodeName = required(args[i], value); i++; break;
                case "--transport-port": transportPort = String.valueOf(Integer.parseInt(required(args[i], value))); i++; break;
                case "--seed-hosts": seedHosts = list(required(args[i], value)); i++; break;
                case "--initial-cluster-managers": initialManagers = list(required(args[i], value)); i++; break;
                default: fail("unknown argument " + args[i]
                        + "; usage: SingleNodeOpenSearch --home DIR [--http-port N (0 = any free)] [--ready-file FILE] [--cluster-name NAME]"
                        + " [--node-name NAME --transport-port N --seed-hosts HOST:PORT,... --initial-cluster-managers NAME,...]");
            }
        }
        if (home == null) {
            fail("--home DIR is required");
        }
        if (!seedHosts.isEmpty() && (nodeName == null || transportPort == null || initialManagers.isEmpty())) {
            fail("--seed-hosts (a cluster node) needs --node-name, --transport-port and --initial-cluster-managers");
        }
        final Cluster cluster = seedHosts.isEmpty() ? null : new Cluster(nodeName, transportPort, seedHosts, initialManagers);
        if (readyFile != null) {
            Files.deleteIfExists(readyFile);
        }
        Files.createDirectories(home);

        final OpenSearchRunner runner = new OpenSearchRunner();
        // The runner probes ports itself unless told not to; the port is ours to choose.
        runner.setMaxHttpPort(-1);
        final String port = String.valueOf(httpPort);
        runner.onBuild((number, settings) -> configure(settings, port, cluster));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                runner.close();
            } catch (final IOException e) {
                System.err.println("SingleNodeOpenSearch: close failed: " + e);
            }
        }, "litsearch-opensearch-shutdown"));

        final OpenSearchRunner.Configs configs = OpenSearchRunner.newConfigs()
                .basePath(home.toString())
                .numOfNode(1)
                .clusterName(clusterName)
                .printOnFailure();
        // The k-NN plugin (its jars on the class path when provision.sh installed it) is a classpath plugin here;
        // without it, vectors are scored exactly by painless.
        if (onClassPath(KNN_PLUGIN)) {
            configs.pluginTypes(KNN_PLUGIN);
            System.out.println("SingleNodeOpenSearch: loading " + KNN_PLUGIN);
        }
        runner.build(configs);
        final ClusterHealthStatus status = runner.ensureYellow();
        // this process's node (runner.getInstance asks the cluster manager's node, which may be another process)
        final int boundPort = runner.node().injector().getInstance(HttpServerTransport.class)
                .boundAddress().publishAddress().getPort();
        final String url = "http://127.0.0.1:" + boundPort;
        if (readyFile != null) {
            // Write then rename so a reader never sees a half-written file.
            final Path tmp = readyFile.resolveSibling(readyFile.getFileName() + ".tmp");
            Files.write(tmp, (url + "\n").getBytes(StandardCharsets.UTF_8));
            Files.move(tmp, readyFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        System.out.println("LITSEARCH_OPENSEARCH_READY " + url + " status=" + status);
        System.out.flush();

        while (!runner.isClosed()) {
            Thread.sleep(1000);
        }
    }

    /** A node of a cluster on this machine: its name, its transport port, and the others' transport addresses. */
    private record Cluster(String nodeName, String transportPort, List<String> seedHosts, List<String> initialManagers) {
    }

    private static List<String> list(final String commaSeparated) {
        return Arrays.stream(commaSeparated.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static void configure(final Settings.Builder settings, final String httpPort, final Cluster cluster) {
        settings.put("http.port", httpPort);
        settings.put("network.host", "127.0.0.1");
        if (cluster == null) {
            settings.put("discovery.type", "single-node");
        } else {
            settings.put("node.name", cluster.nodeName());
            settings.put("transport.port", cluster.transportPort());
            settings.putList("discovery.seed_hosts", cluster.seedHosts());
            settings.putList("cluster.initial_cluster_manager_nodes", cluster.initialManagers());
        }
        settings.putList("node.roles", "cluster_manager", "data", "ingest");
        // A test machine's disk may be fuller than production watermarks allow; never go read-only for that.
        settings.put("cluster.routing.allocation.disk.threshold_enabled", false);
        settings.put("action.auto_create_index", true);
    }

    private static String required(final String flag, final String value) {
        if (value == null) {
            fail(flag + " needs a value");
        }
        return value;
    }

    private static void fail(final String message) {
        System.err.println("SingleNodeOpenSearch: " + message);
        System.exit(2);
    }
}
