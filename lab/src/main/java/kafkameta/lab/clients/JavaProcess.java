package kafkameta.lab.clients;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;

/**
 * A lab program in a JVM of its own: a member the scenario will kill with SIGKILL (`kill -9`: no LeaveGroup, no
 * close, the coordinator finds out only when the session times out), or a Kafka Streams instance of another
 * release, on that release's classpath. It writes truth to the same file; its standard output and error go
 * to the scenario's log.
 */
public final class JavaProcess {
    private final String name;
    private final Process process;

    private JavaProcess(String name, Process process) {
        this.name = name;
        this.process = process;
    }

    /** Start `mainClass` with `args` on `classpath` (null: this JVM's own classpath). */
    public static JavaProcess start(String name, String classpath, String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        for (String property : new String[] {"lab.truth", "lab.bootstrap", "log4j2.configurationFile"}) {
            String value = System.getProperty(property);
            if (value != null) command.add("-D" + property + "=" + value);
        }
        command.add("-cp");
        command.add(classpath == null ? System.getProperty("java.class.path") : classpath);
        command.add(mainClass);
        for (String arg : args) command.add(arg);
        try {
            Process process = new ProcessBuilder(command).inheritIO().redirectInput(ProcessBuilder.Redirect.PIPE).start();
            Truth.get().record(name, "process_started", Json.object().put("pid", process.pid()).put("main", mainClass));
            return new JavaProcess(name, process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + mainClass, e);
        }
    }

    /** A consumer Member in its own JVM. */
    public static JavaProcess member(String... args) {
        String name = new Options(args).get("name");
        return start(name, null, Member.class.getName(), args);
    }

    public long pid() {
        return process.pid();
    }

    /** Ask the program to stop the ordinary way ("stop" on its standard input), and wait for it. */
    public void stop() {
        try {
            OutputStream in = process.getOutputStream();
            in.write("stop\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            in.close();
        } catch (IOException e) {
            // already gone
        }
        waitFor(60);
    }

    /** SIGKILL, as `kill -9` does: the JVM gets no chance to leave the group or close anything. */
    public void kill9() {
        Truth.get().record(name, "killed", Json.object().put("pid", process.pid()).put("signal", "SIGKILL"));
        process.destroyForcibly();
        waitFor(30);
    }

    private void waitFor(int seconds) {
        try {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Truth.get().record(name, "process_ended", Json.object().put("pid", process.pid()).put("exit", process.exitValue()));
    }

    public boolean isAlive() {
        return process.isAlive();
    }
}
