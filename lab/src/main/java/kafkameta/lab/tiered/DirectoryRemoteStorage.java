package kafkameta.lab.tiered;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * The lab's remote storage for tiered storage (KIP-405): a directory on the same disk, one sub-directory per remote
 * segment id holding the segment and its indexes. The broker's own remote-log machinery (RemoteLogManager and the
 * TopicBasedRemoteLogMetadataManager, which writes {@code __remote_log_metadata}) does the rest; this class only
 * keeps bytes, so the metadata topic a lab broker writes is Kafka's own. Configured by
 * {@code remote.log.storage.manager.impl.prefix}{@code dir}.
 */
public final class DirectoryRemoteStorage implements RemoteStorageManager {
    private Path root;

    @Override
    public void configure(Map<String, ?> configs) {
        Object dir = configs.get("dir");
        root = Paths.get(dir == null ? System.getProperty("java.io.tmpdir") + "/lab-remote-storage" : dir.toString());
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path of(RemoteLogSegmentMetadata metadata) {
        return root.resolve(metadata.remoteLogSegmentId().id().toString());
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(
            RemoteLogSegmentMetadata metadata, LogSegmentData data) throws RemoteStorageException {
        Path dir = of(metadata);
        try {
            Files.createDirectories(dir);
            Files.copy(data.logSegment(), dir.resolve("segment"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.offsetIndex(), dir.resolve("OFFSET"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.timeIndex(), dir.resolve("TIMESTAMP"), StandardCopyOption.REPLACE_EXISTING);
            if (data.transactionIndex().isPresent()) {
                Files.copy(data.transactionIndex().get(), dir.resolve("TRANSACTION"), StandardCopyOption.REPLACE_EXISTING);
            }
            Files.copy(data.producerSnapshotIndex(), dir.resolve("PRODUCER_SNAPSHOT"), StandardCopyOption.REPLACE_EXISTING);
            ByteBuffer epochs = data.leaderEpochIndex().duplicate();
            byte[] bytes = new byte[epochs.remaining()];
            epochs.get(bytes);
            Files.write(dir.resolve("LEADER_EPOCH"), bytes);
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
        return Optional.empty();
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition) throws RemoteStorageException {
        return fetchLogSegment(metadata, startPosition, Integer.MAX_VALUE);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition, int endPosition)
            throws RemoteStorageException {
        byte[] bytes = read(of(metadata).resolve("segment"));
        int end = (int) Math.min((long) endPosition + 1, bytes.length);
        return new ByteArrayInputStream(Arrays.copyOfRange(bytes, Math.min(startPosition, end), end));
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata metadata, IndexType indexType) throws RemoteStorageException {
        return new ByteArrayInputStream(read(of(metadata).resolve(indexType.name())));
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata) throws RemoteStorageException {
        Path dir = of(metadata);
        try (var files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(dir);
        } catch (java.nio.file.NoSuchFileException e) {
            // already gone
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
    }

    private static byte[] read(Path file) throws RemoteStorageException {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
    }

    @Override
    public void close() {}
}
