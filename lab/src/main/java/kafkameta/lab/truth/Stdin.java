package kafkameta.lab.truth;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * How a lab program in a JVM of its own is told to stop: "stop" on its standard input (what
 * kafkameta.lab.clients.JavaProcess writes), or its standard input ending. Kept beside the truth file's classes
 * because it compiles against every Kafka release the lab runs (a Member on 4.4.0, WordCount on 2.4.1 too).
 */
public final class Stdin {
    private Stdin() {}

    /** Run {@code stop} in a daemon thread once standard input says "stop" or ends. */
    public static void onStop(Runnable stop) {
        Thread control = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null && !line.trim().equals("stop")) {
                    // only "stop" is understood
                }
            } catch (Exception e) {
                // standard input gone: stop as if told to
            }
            stop.run();
        }, "control");
        control.setDaemon(true);
        control.start();
    }
}
