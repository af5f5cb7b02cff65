// SPDX-License-Identifier: MIT
// A real YARN for flexslot's tests: Hadoop's MiniMRYarnCluster (a
// ResourceManager, NodeManagers and the job history server in this JVM; the
// MapReduce application masters and tasks in containers, JVMs of their own)
// with every address on loopback.
//
//   java -cp JARS MiniYarn DIR NODES NODE_MEMORY_MB NODE_VCORES
//
// It writes DIR/conf/yarn-site.xml (the whole configuration, for job clients:
// put DIR/conf first on their class path), DIR/nodes (a line "INDEX NODE_ID"
// per NodeManager), then DIR/rm-url and the line "ready RM_URL" on stdout. The ResourceManager's ports are fixed for the
// cluster's life and it recovers its state from DIR/rm-state, so that it can
// be stopped and started again while jobs run: a file named stop-rm or
// start-rm put in DIR/control is done and removed, and DIR/rm-state-now says
// "stopped" or "started" after it. SIGTERM stops everything.
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

public final class MiniYarn {
    private static final String LOOPBACK = "127.0.0.1";

    private MiniYarn() {
    }

    // Where freePort() looks next, from 10000 on.
    private static int nextPort = -1;

    // The lowest port of the kernel's range for outgoing connections.
    private static int ephemeralLow() {
        try {
            String range = new String(Files.readAllBytes(
                    Paths.get("/proc/sys/net/ipv4/ip_local_port_range")), StandardCharsets.UTF_8);
            return Integer.parseInt(range.trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32768;
        }
    }

    // A port free now, below the kernel's range for outgoing connections:
    // inside it any connection the machine opens before the cluster binds
    // the port may take it (a NodeManager's, another test's), as a CI run
    // once did. tests/lib/tcp-port.sh chooses so too. Another process
    // binding it meanwhile makes the start fail, loudly.
    private static int freePort() throws IOException {
        int span = Math.max(ephemeralLow() - 10000, 1000);

        if (nextPort < 0) {
            nextPort = (int) (ProcessHandle.current().pid() % span);
        }
        for (int tries = 0; tries < span; tries++) {
            int port = 10000 + nextPort;

            nextPort = (nextPort + 1) % span;
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(LOOPBACK, port));
                return port;
            } catch (IOException e) {
                // Taken: the next one.
            }
        }
        throw new IOException("no free TCP port from 10000 to " + (10000 + span - 1));
    }

    private static void writeAtomically(File f, String text) throws IOException {
        File tmp = new File(f.getPath() + ".tmp");
        Files.write(tmp.toPath(), text.getBytes(StandardCharsets.UTF_8));
        Files.move(tmp.toPath(), f.toPath(), StandardCopyOption.ATOMIC_MOVE);
    }

    private static Configuration configure(File dir, int nodeMemory, int nodeVcores)
            throws IOException {
        YarnConfiguration conf = new YarnConfiguration();
        String[] rmKeys = {
            YarnConfiguration.RM_ADDRESS, YarnConfiguration.RM_SCHEDULER_ADDRESS,
            YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS, YarnConfiguration.RM_ADMIN_ADDRESS,
            YarnConfiguration.RM_WEBAPP_ADDRESS,
        };

        // Fixed ports and real RPC: a restarted ResourceManager is found
        // again where it was, by the NodeManagers and the AMs.
        conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
        conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_USE_RPC, true);
        for (String key : rmKeys) {
            conf.set(key, LOOPBACK + ":" + freePort());
        }
        conf.set(YarnConfiguration.RM_HOSTNAME, LOOPBACK);
        conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
        conf.set(YarnConfiguration.RM_STORE,
                "org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore");
        conf.set(YarnConfiguration.FS_RM_STATE_STORE_URI,
                new File(dir, "rm-state").toURI().toString());
        // Ask a gone ResourceManager again every half second, not every 30.
        conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_RETRY_INTERVAL_MS, 500);
        conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_MAX_WAIT_MS, 120_000);

        conf.setInt(YarnConfiguration.YARN_MINICLUSTER_NM_PMEM_MB, nodeMemory);
        conf.setInt(YarnConfiguration.NM_VCORES, nodeVcores);
        conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
        conf.setInt(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 500);

        // The CapacityScheduler's reservation system on a reservable queue
        // "dedicated" beside "default": jobs go to default, and one user's
        // may take the whole cluster there while dedicated is idle; a
        // deadline job's reservation is planned in dedicated's 90 % (a
        // plan's capacity is its queue's guaranteed one: a reservation of
        // more containers than it holds at once is refused), and its
        // reservation's queue takes the plan's user limit factor: a job
        // moved there may use idle containers beyond its reservation.
        String root = "yarn.scheduler.capacity.root";
        conf.setBoolean(YarnConfiguration.RM_RESERVATION_SYSTEM_ENABLE, true);
        conf.set(root + ".queues", "default,dedicated");
        conf.set(root + ".default.capacity", "10");
        conf.set(root + ".default.maximum-capacity", "100");
        conf.set(root + ".default.user-limit-factor", "10");
        conf.set(root + ".dedicated.capacity", "90");
        conf.set(root + ".dedicated.maximum-capacity", "100");
        conf.setBoolean(root + ".dedicated.reservable", true);
        conf.set(root + ".dedicated.user-limit-factor", "10");

        // Small containers of JVMs that start fast: the machines that run the
        // tests are small and busy.
        String opts = "-Xmx160m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k";
        conf.setInt(MRJobConfig.MR_AM_VMEM_MB, 384);
        conf.set(MRJobConfig.MR_AM_COMMAND_OPTS, opts);
        conf.setInt(MRJobConfig.MAP_MEMORY_MB, 256);
        conf.setInt(MRJobConfig.REDUCE_MEMORY_MB, 256);
        conf.set(MRJobConfig.MAP_JAVA_OPTS, opts);
        conf.set(MRJobConfig.REDUCE_JAVA_OPTS, opts);
        // The controller is the speculator under test, not the AM.
        conf.setBoolean(MRJobConfig.MAP_SPECULATIVE, false);
        conf.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, false);
        conf.setInt(MRJobConfig.MR_CLIENT_TO_AM_IPC_MAX_RETRIES, 3);
        return conf;
    }

    private static void control(MiniMRYarnCluster cluster, File dir) throws Exception {
        File controlDir = new File(dir, "control");
        File state = new File(dir, "rm-state-now");

        controlDir.mkdirs();
        writeAtomically(state, "started\n");
        for (;;) {
            Thread.sleep(200);
            File stop = new File(controlDir, "stop-rm");
            File start = new File(controlDir, "start-rm");
            if (stop.exists()) {
                System.out.println("stopping the ResourceManager");
                cluster.stopResourceManager(0);
                Files.delete(stop.toPath());
                writeAtomically(state, "stopped\n");
                System.out.println("ResourceManager stopped");
            }
            if (start.exists()) {
                System.out.println("starting the ResourceManager");
                cluster.restartResourceManager(0);
                Files.delete(start.toPath());
                writeAtomically(state, "started\n");
                System.out.println("ResourceManager started");
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: MiniYarn DIR NODES NODE_MEMORY_MB NODE_VCORES");
            System.exit(2);
        }
        File dir = new File(args[0]).getAbsoluteFile();
        int nodeCount = Integer.parseInt(args[1]);
        Configuration conf = configure(dir, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        MiniMRYarnCluster cluster = new MiniMRYarnCluster("flexslot", nodeCount);

        // SIGTERM: the cluster stops its containers, but once jobs ran its
        // stop may hang (seen at over 30 s); the JVM ends after 10 s anyway.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Thread stopper = new Thread(cluster::stop);
            stopper.setDaemon(true);
            stopper.start();
            try {
                stopper.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        try {
            cluster.init(conf);
            cluster.start();
            // Every web app of the JVM shares Guice's one servlet pipeline,
            // and the last one built takes it: a NodeManager's, which answers
            // the ResourceManager's port with 404. A ResourceManager started
            // again builds its web app last (and recovers what it had).
            cluster.restartResourceManager(0);
        } catch (RuntimeException e) {
            // The services started before the one that failed keep the JVM
            // alive: end it, so that the test reports this error at once
            // instead of waiting for a cluster that will not come up.
            e.printStackTrace();
            System.exit(1);
        }

        File confDir = new File(dir, "conf");
        confDir.mkdirs();
        try (OutputStream out = new FileOutputStream(new File(confDir, "yarn-site.xml"))) {
            cluster.getConfig().writeXml(out);
        }
        // Which NodeManager is which: a container's working directory is
        // under its NodeManager's ...-localDir-nm-INDEX_N.
        StringBuilder nodes = new StringBuilder();
        for (int i = 0; i < nodeCount; i++) {
            nodes.append(i).append(' ')
                    .append(cluster.getNodeManager(i).getNMContext().getNodeId()).append('\n');
        }
        writeAtomically(new File(dir, "nodes"), nodes.toString());
        String url = "http://" + cluster.getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS);
        writeAtomically(new File(dir, "rm-url"), url + "\n");
        System.out.println("ready " + url);
        control(cluster, dir);
    }
}
