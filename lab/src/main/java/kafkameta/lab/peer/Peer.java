package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

/**
 * Kafka's own code as a peer the project is compared with, case by case: one JVM for a whole run, reading
 * requests as JSON Lines on standard input and answering each on standard output, in order.
 *
 * A request is {"id": any, "op": "name", ...arguments}; its answer {"id": same, "ok": true, "result": ...} or,
 * when Kafka's code throws, {"id": same, "ok": false, "error": "ExceptionClass: message (caused by ...)"}: a refusal is an
 * answer, not a failure of the peer. Bytes travel as hex. "ops" lists the operations this peer knows.
 * Answers are flushed whenever no more requests are waiting, so a caller may send many before reading.
 *
 * <p>A request with {"deadlineMs": n} runs on a worker thread, and when Kafka's code has not returned after n ms
 * the worker is stopped and the answer is {"ok": false, "error": "PeerTimeout: ...", "timeout": true}: some inputs
 * keep Kafka's code busy for good (AbstractStickyAssignor's balancing can move the same partitions back and forth
 * forever), and a run of many cases must go on past them.
 */
public final class Peer {
    /** One operation: its arguments in, its result out (any exception is the answer's error). */
    public interface Handler {
        JsonNode handle(ObjectNode request) throws Exception;
    }

    /** Answers are written as ASCII (anything else escaped): a Java string may hold an unpaired surrogate (read
     *  from modified UTF-8, say), which UTF-8 cannot carry and the answer must keep. */
    static final ObjectMapper JSON = new ObjectMapper(
        com.fasterxml.jackson.core.JsonFactory.builder()
            .enable(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII).build());
    /** The families of operations, each a class of this package with a static register(Peer). */
    static final String[] FAMILIES = {
        "Messages", "ConsumerProtocolOps", "AssignorUserData", "StreamsInfo", "Records",
        "ClientAssignors", "ServerAssignors", "TaskAssignors", "StreamsDecisions", "Constructed",
    };
    private final Map<String, Handler> handlers = new HashMap<>();

    public void register(String op, Handler handler) {
        if (handlers.put(op, handler) != null) throw new IllegalStateException("op registered twice: " + op);
    }

    private Peer() {
        register("ping", request -> JSON.createObjectNode()
            .put("kafka", org.apache.kafka.common.utils.internals.AppInfoParser.getVersion()));
        register("ops", request -> JSON.valueToTree(new TreeSet<>(handlers.keySet())));
        // each family of operations registers itself (a static register(Peer) method)
        for (String family : FAMILIES) {
            try {
                Class.forName("kafkameta.lab.peer." + family).getMethod("register", Peer.class).invoke(null, this);
            } catch (ClassNotFoundException e) {
                // a family this build does not have
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot register the " + family + " operations", e);
            }
        }
    }

    ObjectNode answer(String line) {
        ObjectNode out = JSON.createObjectNode();
        ObjectNode request;
        try {
            request = (ObjectNode) JSON.readTree(line);
        } catch (Exception e) {
            return out.put("ok", false).put("error", "request is not a JSON object: " + e.getMessage());
        }
        out.set("id", request.get("id"));
        String op = request.path("op").asText("");
        Handler handler = handlers.get(op);
        if (handler == null) return out.put("ok", false).put("error", "unknown op " + op);
        long deadline = request.path("deadlineMs").asLong(0);
        if (deadline > 0) return bounded.run(handler, request, deadline, out);
        return run(handler, request, out);
    }

    @SuppressWarnings("removal")
    static ObjectNode run(Handler handler, ObjectNode request, ObjectNode out) {
        try {
            out.put("ok", true).set("result", handler.handle(request));
        } catch (ThreadDeath stopped) {
            throw stopped;  // a bounded request overran: its worker ends
        } catch (Throwable e) {
            out.put("ok", false).put("error", described(e));
        }
        return out;
    }

    /** "Class: message", then each cause as " (caused by Class: message)", then " [thrown in A, B.C, ...]": the
     *  classes of Kafka's own code on the stack where it was thrown, innermost first (nested classes joined by a
     *  dot). A wrapper's message may say no more than that the bytes were bad, and the cause says why; the classes
     *  say where. The conformance run compares both with the project's refusal. */
    static String described(Throwable e) {
        StringBuilder text = new StringBuilder(e.getClass().getSimpleName() + ": " + e.getMessage());
        int depth = 0;
        Throwable innermost = e;
        for (Throwable cause = e.getCause(); cause != null && cause != e && depth < 8; cause = cause.getCause()) {
            text.append(" (caused by ").append(cause.getClass().getSimpleName()).append(": ")
                .append(cause.getMessage()).append(")");
            innermost = cause;
            depth++;
        }
        java.util.LinkedHashSet<String> classes = new java.util.LinkedHashSet<>();
        for (StackTraceElement frame : innermost.getStackTrace()) {
            String name = frame.getClassName();
            if (!name.startsWith("org.apache.kafka.")) continue;
            classes.add(name.substring(name.lastIndexOf('.') + 1).replace('$', '.'));
            if (classes.size() == 12) break;
        }
        if (!classes.isEmpty()) text.append(" [thrown in ").append(String.join(", ", classes)).append("]");
        return text.toString();
    }

    private final Bounded bounded = new Bounded();

    /** Requests with a deadline: run one at a time on a worker thread, which is stopped (and replaced) when it
     *  overruns. Thread.stop is the only way to end code that never checks for interruption; what the stopped
     *  worker held is garbage, as every handler builds its own objects. */
    private static final class Bounded {
        private record Job(Handler handler, ObjectNode request, ObjectNode out) {}

        private BlockingQueue<Job> jobs;
        private BlockingQueue<ObjectNode> done;
        private Thread worker;

        ObjectNode run(Handler handler, ObjectNode request, long deadlineMs, ObjectNode out) {
            if (worker == null) start();
            try {
                jobs.put(new Job(handler, request, out));
                ObjectNode answer = done.poll(deadlineMs, TimeUnit.MILLISECONDS);
                if (answer != null) return answer;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stop();
            return out.put("ok", false).put("timeout", true)
                .put("error", "PeerTimeout: no answer within " + deadlineMs + " ms");
        }

        private void start() {
            BlockingQueue<Job> in = new SynchronousQueue<>();
            BlockingQueue<ObjectNode> answers = new ArrayBlockingQueue<>(1);
            jobs = in;
            done = answers;
            worker = new Thread(() -> {
                try {
                    while (true) {
                        Job job = in.take();
                        answers.add(Peer.run(job.handler(), job.request(), job.out()));
                    }
                } catch (Throwable stoppedOrInterrupted) {
                    // stopped after overrunning a deadline: a fresh worker takes the next request
                }
            }, "peer-bounded");
            worker.setDaemon(true);
            worker.start();
        }

        @SuppressWarnings({"deprecation", "removal"})
        private void stop() {
            worker.stop();
            worker = null;  // a fresh worker (and queues) for the next request: the old one may still answer late
        }
    }

    public static void main(String[] args) throws IOException {
        // standard output carries the answers: Kafka's own logging, which without a configuration writes its errors
        // there (a refused assignment, an undecodable subscription), is switched off before anything logs
        System.setProperty("log4j2.level", "OFF");
        Peer peer = new Peer();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            out.write(JSON.writeValueAsString(peer.answer(line)));
            out.write('\n');
            if (!in.ready()) out.flush();
        }
        out.flush();
    }
}
