package kafkameta.lab.peer;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Older kafka-clients releases, each in a class loader of its own, for the message versions Kafka 4.4 no longer
 * reads or writes (KIP-896 removed OffsetCommit v0-v1 and OffsetFetch v0 in 4.0; 4.1 dropped ShareGroupHeartbeat
 * v0): those versions are compared with the last release whose generated classes still had them.
 *
 * <p>The jars are copied by the lab's build into {@code lab/kafka/target/releases} (lab/kafka/pom.xml). A release's
 * own {@code org.apache.kafka} classes are loaded from its jar first; everything else (Jackson, which its
 * JsonConverters read and write) comes from the peer's class path, so JSON nodes pass between the two unchanged.
 */
final class Releases {
    private static final Map<String, ClassLoader> LOADERS = new ConcurrentHashMap<>();

    private Releases() {}

    /** The class loader of kafka-clients {@code release}, e.g. "3.9.1". */
    static ClassLoader loader(String release) {
        return LOADERS.computeIfAbsent(release, Releases::open);
    }

    private static ClassLoader open(String release) {
        try {
            Path classes = Path.of(Releases.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            File jar = classes.resolveSibling("releases").resolve("kafka-clients-" + release + ".jar").toFile();
            if (!jar.isFile()) {
                throw new IllegalArgumentException("no kafka-clients " + release + " at " + jar
                    + " (the lab's build copies the releases it knows into lab/kafka/target/releases)");
            }
            return new ChildFirst(jar.toURI().toURL(), Releases.class.getClassLoader());
        } catch (java.net.URISyntaxException | java.net.MalformedURLException e) {
            throw new IllegalStateException("cannot locate the peer's classes", e);
        }
    }

    /** Loads Kafka's classes from the release's jar before asking its parent, anything else from the parent. */
    private static final class ChildFirst extends URLClassLoader {
        ChildFirst(URL jar, ClassLoader parent) {
            super(new URL[] {jar}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("org.apache.kafka.")) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> found = findLoadedClass(name);
                if (found == null) found = findClass(name);
                if (resolve) resolveClass(found);
                return found;
            }
        }
    }
}
