package kafkameta.lab.scenarios;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import kafkameta.lab.clients.ClientConfig;
import kafkameta.lab.clients.Groups;
import kafkameta.lab.clients.JavaProcess;
import kafkameta.lab.clients.Load;
import kafkameta.lab.clients.Member;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * What every scenario shares: the broker's address (system property lab.bootstrap, set by lab/record), the
 * truth file, an Admin client, and the members, processes and load it started, all stopped at the end
 * whatever happens. A scenario marks its phases with `step`, so tests can find them in truth.jsonl.
 */
public abstract class Scenario implements AutoCloseable {
    /** How long a scenario waits for a group to settle before it fails. */
    protected static final long SETTLE_MS = 90_000;
    protected final String bootstrap = System.getProperty("lab.bootstrap");
    protected final Truth truth = Truth.get();
    protected final Admin admin;
    protected final Groups groups;
    private final List<AutoCloseable> started = new ArrayList<>();
    /** The scenario's name (labkit.scenarios' key), the source of its own truth lines; set by {@link #run}. */
    protected String name;

    protected Scenario() {
        if (bootstrap == null) throw new IllegalStateException("the system property lab.bootstrap is not set");
        this.admin = Admin.create(ClientConfig.admin(bootstrap, "lab-admin").properties());
        this.groups = new Groups(admin);
    }

    /** The scenario itself; members, processes and load still running when it returns are stopped. */
    protected abstract void play() throws Exception;

    protected void step(String what) {
        truth.record(name, "step", Json.object().put("step", what));
    }

    /**
     * A step that does one thing to one group: "join", "leave" (closed with LeaveGroup), "kill" (SIGKILL: the
     * coordinator expires it), "poll-timeout" (it outlasts max.poll.interval.ms), "restart-within-timeout" and
     * "restart-past-timeout" (a static member), "return" (back after being expired), "stop" (the last members
     * go), so tests can tell what each rebalance should be attributed to.
     */
    protected void step(String what, String group, String action, String member) {
        truth.record(name, "step", Json.object().put("step", what).put("group", group).put("action", action)
            .put("member", member));
    }

    protected void createTopic(String topic, int partitions) {
        try {
            admin.createTopics(Collections.singleton(new NewTopic(topic, partitions, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        truth.record(name, "topic", Json.object().put("topic", topic).put("partitions", partitions));
    }

    /** A member polling in a thread of this JVM. */
    protected Member member(String... args) {
        Member member = new Member(withBootstrap(args)).start();
        started.add(member::stop);
        return member;
    }

    /** A member in a JVM of its own (one the scenario may kill). */
    protected JavaProcess memberProcess(String... args) {
        return process(JavaProcess.member(withBootstrap(args)));
    }

    /** A program the scenario started in a JVM of its own, stopped at the end unless it has ended already. */
    protected JavaProcess process(JavaProcess process) {
        started.add(() -> {
            if (process.isAlive()) process.stop();
        });
        return process;
    }

    /**
     * A consume-transform-produce application's topics: {@code input} and {@code output} of {@code partitions}
     * partitions each, and {@code records} records written into {@code input} first, round-robin over its
     * partitions, by a producer named after the input (lab-txn-in: client.id lab-txn-fill).
     */
    protected void inputAndOutput(String input, String output, int partitions, int records) {
        createTopic(input, partitions);
        createTopic(output, partitions);
        step("fill " + input);
        String client = input.substring(0, input.lastIndexOf('-')) + "-fill";
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(ClientConfig.producer(bootstrap, client).properties())) {
            for (int n = 0; n < records; n++) {
                producer.send(new ProducerRecord<>(input, n % partitions, "key-" + n, "value-" + n));
            }
            producer.flush();
        }
    }

    /** Anything else the scenario starts, closed at the end (in reverse order, with the members and the load). */
    protected <T extends AutoCloseable> T closeAtEnd(T thing) {
        started.add(thing);
        return thing;
    }

    /** A topic of its own for the scenario's group, with a trickle of {@code perSecond} records into it. */
    protected void loadedTopic(String topic, int partitions, int perSecond) {
        createTopic(topic, partitions);
        load(List.of(topic), perSecond);
    }

    protected Load load(List<String> topics, int perSecond) {
        Load load = new Load(bootstrap, topics, perSecond);
        started.add(load);
        return load;
    }

    /**
     * The classic and consumer protocols' shared choreography, on a topic of its own with a trickle of records:
     * members a, b and c join one by one (c in a JVM of its own), b leaves, c is killed with SIGKILL so the
     * coordinator expires it after its session timeout, and a, the last, leaves; each step waits until the
     * group is stable with the members left, and the committed offsets are recorded after c joined, after it
     * expired and at the end. {@code common} are the members' arguments but their names.
     */
    protected void joinLeaveAndExpire(String group, String topic, int partitions, long settleMs, String... common)
            throws Exception {
        loadedTopic(topic, partitions, 5);

        step(group + ": a joins", group, "join", "a");
        Member a = member(with(common, "--name", group + "-a"));
        settle(group, 1, partitions, settleMs, 2000);
        step(group + ": b joins", group, "join", "b");
        Member b = member(with(common, "--name", group + "-b"));
        settle(group, 2, partitions, settleMs, 2000);
        step(group + ": c joins", group, "join", "c");
        JavaProcess c = memberProcess(with(common, "--name", group + "-c"));
        settle(group, 3, partitions, settleMs, 3000);
        groups.committed(group);

        step(group + ": b leaves", group, "leave", "b");
        b.stop();
        settle(group, 2, partitions, settleMs, 2000);
        step(group + ": c is killed", group, "kill", "c");
        c.kill9();
        settle(group, 1, partitions, settleMs, 2000);
        groups.committed(group);

        step(group + ": a leaves", group, "stop", "a");
        a.stop();
        settle(group, 0, partitions, settleMs, 0);
        groups.committed(group);
    }

    /** Wait until the group is stable with {@code members} members owning its partitions, then {@code pauseMs}. */
    private void settle(String group, int members, int partitions, long settleMs, long pauseMs) throws Exception {
        groups.awaitStable(group, members, partitions, settleMs);
        pause(pauseMs);
    }

    /** {@code common} followed by {@code more}: a member's arguments built from those its group shares. */
    protected static String[] with(String[] common, String... more) {
        String[] all = new String[common.length + more.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(more, 0, all, common.length, more.length);
        return all;
    }

    private String[] withBootstrap(String[] args) {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap";
        all[1] = bootstrap;
        System.arraycopy(args, 0, all, 2, args.length);
        return all;
    }

    protected static void pause(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }

    @Override
    public void close() {
        List<AutoCloseable> reversed = new ArrayList<>(started);
        Collections.reverse(reversed);
        for (AutoCloseable thing : reversed) {
            try {
                thing.close();
            } catch (Exception e) {
                truth.record(name, "cleanup_error", Json.object().put("error", e.toString()));
            }
        }
        admin.close();
    }

    /**
     * Run the scenario called {@code name}: play it, record how it ended, stop everything it started, exit
     * non-zero on failure.
     */
    protected static void run(String name, Scenario scenario) {
        scenario.name = name;
        int status = 0;
        try (scenario) {
            scenario.truth.record(scenario.name, "scenario_start", Json.object().put("bootstrap", scenario.bootstrap));
            scenario.play();
            scenario.truth.record(scenario.name, "scenario_end", Json.object().put("ok", true));
        } catch (Throwable e) {
            scenario.truth.record(scenario.name, "scenario_end", Json.object().put("ok", false).put("error", e.toString()));
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }
}
