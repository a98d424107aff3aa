package kafkameta.lab.truth;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * truth.jsonl: what the Java side itself observed, one JSON object per line.
 *
 * Every line carries "ts" (epoch milliseconds, the observer's clock, which is the capture's clock on loopback),
 * "source" (which program or member saw it) and "event". Several processes of one scenario append to the same
 * file: the file is opened in append mode and each line goes out in one write, so lines never interleave.
 */
public final class Truth {
    private static Truth shared;
    private final OutputStream out;

    private Truth(String path) {
        try {
            this.out = new FileOutputStream(path, true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open truth file " + path, e);
        }
    }

    /** The truth file named by the system property lab.truth (set by lab/record), opened once per JVM. */
    public static synchronized Truth get() {
        if (shared == null) {
            String path = System.getProperty("lab.truth");
            if (path == null) throw new IllegalStateException("the system property lab.truth names no file");
            shared = new Truth(path);
        }
        return shared;
    }

    public void record(String source, String event, Json fields) {
        Json line = Json.object().put("ts", System.currentTimeMillis()).put("source", source).put("event", event);
        StringBuilder text = new StringBuilder(line.toString());
        String rest = fields == null ? "{}" : fields.toString();
        if (rest.length() > 2) {
            text.setLength(text.length() - 1);
            text.append(',').append(rest, 1, rest.length());
        }
        text.append('\n');
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        synchronized (this) {
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write truth", e);
            }
        }
    }
}
