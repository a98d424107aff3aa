package kafkameta.lab.scenarios;

import java.io.File;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kafkameta.lab.clients.JavaProcess;
import kafkameta.lab.clients.Names;
import kafkameta.lab.streams.WordCount;
import kafkameta.lab.truth.Json;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;

/**
 * A Kafka Streams application rolled from an old release to 4.4.0 the way Kafka's Streams upgrade guide says:
 * two instances of WordCount (a classic group whose members carry Streams' SubscriptionInfo and
 * AssignmentInfo) start on the old release (lab/pom.xml's streams.legacy.version) and count a trickle of
 * sentences; then a first rolling bounce restarts each instance in turn on 4.4.0 with upgrade.from set to the
 * old release, and a second rolling bounce restarts each on 4.4.0 without it. Each instance keeps its state
 * directory across its restarts and has one standby replica, so its subscriptions carry previous active and
 * standby tasks, and the assignments standby tasks.
 *
 * <p>What it shows: the metadata versions the members really send in each phase and the version-probing
 * rounds of a rolling upgrade (KIP-268): a member of the newer release sends its latest version, an older
 * leader answers with the version it supports, the newer member downgrades and rejoins, and once every member
 * supports the newer version the leader says so and everyone upgrades in one more rebalance. Each bounce
 * restarts upgrade-b first: upgrade-a started first and stays the group's leader while it lives, so the first
 * restart meets a leader of the old release (which answers a future subscription), the second one a leader of
 * the new release. The instances write to truth what Streams logs about it (kafkameta.lab.streams.AssignorLog).
 *
 * <p>Instances close without leaving the group (Kafka Streams does not send LeaveGroup), so a restarted
 * instance joins as a new member while its old one waits out its session timeout (10 s). After each restart
 * the scenario waits until the group has been Stable with both members and every active task assigned for
 * {@value #QUIET_MS} ms, since version probing and cooperative rebalancing follow a rebalance with another one
 * right away. Truth line of its own (source "streams-upgrade"): {@code settled} (group, members, waited_ms: how
 * long after the start or restart the settled state began), besides the steps, and the Admin snapshots
 * ({@code describe}) and committed offsets ({@code committed}) after each phase.
 */
public final class StreamsUpgrade extends StreamsScenario {
    static final String APP = "lab-wordcount-upgrade";
    static final long SETTLE_MS = 120_000;
    static final long QUIET_MS = 8_000;

    @Override
    protected void play() throws Exception {
        String legacy = legacyRelease();
        String from = legacy.substring(0, legacy.indexOf('.', legacy.indexOf('.') + 1));
        String current = WordCount.release();
        createTopics();
        sentences(2);
        String[] standby = {"--standbys", "1"};

        step("upgrade-a starts on Kafka Streams " + legacy);
        JavaProcess a = instance(APP, "upgrade-a", LEGACY, standby);
        settle(1, Set.of());
        step("upgrade-b starts on Kafka Streams " + legacy);
        JavaProcess b = instance(APP, "upgrade-b", LEGACY, standby);
        settle(2, Set.of());
        groups.committed(APP);

        String[] first = {"--standbys", "1", "--upgrade-from", from};
        step("first rolling bounce: upgrade-b restarts on " + current + " with upgrade.from=" + from);
        b = bounce(b, "upgrade-b", first);
        step("first rolling bounce: upgrade-a restarts on " + current + " with upgrade.from=" + from);
        a = bounce(a, "upgrade-a", first);
        groups.committed(APP);

        step("second rolling bounce: upgrade-b restarts on " + current + " without upgrade.from");
        b = bounce(b, "upgrade-b", standby);
        step("second rolling bounce: upgrade-a restarts on " + current + " without upgrade.from");
        a = bounce(a, "upgrade-a", standby);
        groups.committed(APP);

        step("upgrade-a and upgrade-b stop");
        a.stop();
        b.stop();
        groups.committed(APP);
    }

    private JavaProcess bounce(JavaProcess old, String name, String[] args) {
        Set<String> replaced = new HashSet<>();
        for (MemberDescription member : groups.describe(APP).members()) {
            if (member.clientId().startsWith(name + "-")) replaced.add(member.consumerId());
        }
        old.stop();
        JavaProcess restarted = instance(APP, name, CURRENT, args);
        settle(2, replaced);
        return restarted;
    }

    /**
     * Wait until the group has been Stable for QUIET_MS with `members` members, none of them one the restart
     * `replaced`, each holding active tasks and all of them held, with no change of members or assignment
     * meanwhile; then snapshot it.
     */
    private void settle(int members, Set<String> replaced) {
        long start = System.currentTimeMillis();
        groups.awaitSettled(APP, members + " members", SETTLE_MS, QUIET_MS,
            description -> settledAssignment(description, members, replaced),
            since -> truth.record("streams-upgrade", "settled", Json.object().put("group", APP).put("members", members)
                .put("waited_ms", since - start)));
    }

    /** The members and their partitions when the group is settled as `settle` wants it, else null. */
    static String settledAssignment(ConsumerGroupDescription description, int members, Set<String> replaced) {
        if (description == null || description.groupState() != GroupState.STABLE || description.members().size() != members) return null;
        TreeMap<String, List<String>> byMember = new TreeMap<>();
        Set<String> held = new HashSet<>();
        for (MemberDescription member : description.members()) {
            List<String> partitions = Names.partitions(member.assignment().topicPartitions());
            if (partitions.isEmpty() || replaced.contains(member.consumerId())) return null;
            byMember.put(member.consumerId(), partitions);
            held.addAll(partitions);
        }
        return held.size() == ACTIVE_TASKS ? byMember.toString() : null;
    }

    /** The Kafka Streams release on the legacy classpath, from its kafka-streams jar's name. */
    static String legacyRelease() {
        Pattern jar = Pattern.compile("kafka-streams-(\\d+\\.\\d+\\.\\d+)\\.jar");
        List<String> found = new ArrayList<>();
        for (String entry : LEGACY.split(File.pathSeparator)) {
            File dir = new File(entry.endsWith("*") ? entry.substring(0, entry.length() - 1) : entry);
            String[] names = dir.isDirectory() ? dir.list() : new String[] {dir.getName()};
            for (String name : names == null ? new String[0] : names) {
                Matcher matcher = jar.matcher(name);
                if (matcher.matches()) found.add(matcher.group(1));
            }
        }
        if (found.size() != 1) throw new IllegalStateException("expected one kafka-streams jar on " + LEGACY + ": " + found);
        return found.get(0);
    }

    public static void main(String[] args) {
        run("streams-upgrade", new StreamsUpgrade());
    }
}
