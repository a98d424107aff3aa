package kafkameta.lab.streams;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * What Kafka Streams itself says about metadata versions and version probing, as truth lines: a log4j2
 * appender added at run time to the loggers of the classes that log it, in Streams 2.4 and 4.4 alike
 * (the names and messages are those of both releases' jars):
 * <ul>
 * <li>{@code org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor}: the group leader's
 *     "Received a future (version probing) subscription (version: N). Sending assignment back (with
 *     supported version M).", "Downgrade metadata to version N. Latest supported version is M.", "Downgrade
 *     latest supported metadata to version N. ...", and every member's "Sent a version N subscription and got
 *     version M assignment back (successful version probing). Downgrade subscription metadata to commonly
 *     supported version M and trigger new rebalance." or "Sent a version N subscription and group's latest
 *     commonly supported version is M (successful version probing and end of rolling upgrade). Upgrading
 *     subscription metadata version to M for next rebalance.", plus its lines on follow-up rebalances, so
 *     a version-probing rebalance can be told from a cooperative one ("Requested to schedule immediate
 *     rebalance due to version probing.", "Finished unstable assignment of tasks, a followup rebalance will be
 *     scheduled.", "Finished stable assignment of tasks, no followup rebalances required.", ...);</li>
 * <li>{@code org.apache.kafka.streams.processor.internals.assignment.AssignorConfiguration}: in 2.4, the
 *     rebalance protocol upgrade.from selects ("Cooperative rebalancing enabled now", "Eager rebalancing
 *     enabled now for upgrade from 2.3.x") and the metadata version it pins ("Downgrading metadata version
 *     from N to M for upgrade from X.x."); 4.4 logs neither: upgrade.from no longer changes either;</li>
 * <li>{@code org.apache.kafka.streams.processor.internals.StreamThread}: the member acting on a version
 *     probing assignment ("Version probing detected. Triggering new rebalance." in 2.4, "Received version
 *     probing code VERSION_PROBING" in 4.4, logged through the thread's logger).</li>
 * </ul>
 * Only INFO and above, and only messages that match the logger's pattern, become truth; what the loggers
 * wrote to the scenario's log before stays as the log4j2 configuration says.
 */
public final class AssignorLog extends AbstractAppender {
    static final Map<String, Pattern> LOGGERS = new LinkedHashMap<>();

    static {
        Pattern versions = Pattern.compile("(?i)version|probing|followup rebalance|immediate rebalance|rebalancing enabled");
        LOGGERS.put("org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor", versions);
        LOGGERS.put("org.apache.kafka.streams.processor.internals.assignment.AssignorConfiguration", versions);
        LOGGERS.put("org.apache.kafka.streams.processor.internals.StreamThread", Pattern.compile("(?i)version probing"));
    }

    private final String source;
    private final Truth truth = Truth.get();

    private AssignorLog(String source) {
        super("truth-" + source, null, null, true, Property.EMPTY_ARRAY);
        this.source = source;
    }

    @Override
    public void append(LogEvent event) {
        if (!event.getLevel().isMoreSpecificThan(Level.INFO)) return;
        Pattern pattern = LOGGERS.get(event.getLoggerName());
        String message = event.getMessage().getFormattedMessage();
        if (pattern == null || !pattern.matcher(message).find()) return;
        truth.record(source, "streams_log", Json.object()
            .put("logger", event.getLoggerName())
            .put("level", event.getLevel().name())
            .put("thread", event.getThreadName())
            .put("message", message));
    }

    /**
     * Add the appender to the loggers above at INFO. Each gets a logger configuration of its own that sends
     * to the appenders it reached before at the level it had before, so the scenario's log is unchanged.
     */
    public static void install(String source) {
        LoggerContext context = LoggerContext.getContext(false);
        Configuration config = context.getConfiguration();
        AssignorLog appender = new AssignorLog(source);
        appender.start();
        config.addAppender(appender);
        for (String name : LOGGERS.keySet()) {
            LoggerConfig before = config.getLoggerConfig(name);
            Level level = before.getLevel();
            Map<String, Appender> reached = new LinkedHashMap<>();
            for (LoggerConfig c = before; c != null; c = c.isAdditive() ? c.getParent() : null) {
                for (Appender a : c.getAppenders().values()) reached.putIfAbsent(a.getName(), a);
            }
            if (before.getName().equals(name)) config.removeLogger(name);
            Level own = level.isLessSpecificThan(Level.INFO) ? level : Level.INFO;
            LoggerConfig mine = new LoggerConfig(name, own, false);
            for (Appender a : reached.values()) mine.addAppender(a, level, null);
            mine.addAppender(appender, Level.INFO, null);
            config.addLogger(name, mine);
        }
        context.updateLoggers();
    }
}
