package kafkameta.lab.metadata;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Changes to a cluster's metadata, made through Kafka's Admin client so that the controller writes each kind of
 * record of the KRaft metadata log: topics created, grown and deleted; topic, broker, cluster-default broker and
 * group configurations set and deleted; client quotas of a user, a client id and the default user set and one
 * removed; SCRAM credentials of two mechanisms upserted and one deleted; ACLs (the broker must run the standard
 * authorizer) created and one deleted; and a record produced by an idempotent producer, for which the broker asks
 * the controller for a block of producer ids.
 *
 * <p>A package of its own, not in {@code truth}: the lab also compiles {@code truth} against Kafka Streams 2.4.1's
 * clients (the streams-legacy module), which have neither the SCRAM nor the quota admin calls.
 *
 * <p>Usage: {@code MetadataChanges BOOTSTRAP}. Prints one line per step, "done" at the end; any failure exits
 * non-zero with Kafka's exception.
 */
public final class MetadataChanges {
    static final String TOPIC = "meta-a";
    static final String DELETED_TOPIC = "meta-b";

    private MetadataChanges() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: MetadataChanges BOOTSTRAP");
            System.exit(2);
        }
        String bootstrap = args[0];
        Properties settings = new Properties();
        settings.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(settings)) {
            topics(admin);
            configs(admin);
            quotas(admin);
            scram(admin);
            acls(admin);
        }
        produce(bootstrap);
        System.out.println("done");
    }

    static void topics(Admin admin) throws Exception {
        admin.createTopics(List.of(
            new NewTopic(TOPIC, 2, (short) 1).configs(Map.of("retention.ms", "3600000")),
            new NewTopic(DELETED_TOPIC, 1, (short) 1))).all().get();
        admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(3))).all().get();
        admin.deleteTopics(List.of(DELETED_TOPIC)).all().get();
        System.out.println("topics");
    }

    static void configs(Admin admin) throws Exception {
        Map<ConfigResource, java.util.Collection<AlterConfigOp>> changes = new HashMap<>();
        changes.put(new ConfigResource(ConfigResource.Type.TOPIC, TOPIC), List.of(
            new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET),
            new AlterConfigOp(new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE)));
        changes.put(new ConfigResource(ConfigResource.Type.BROKER, "1"), List.of(
            new AlterConfigOp(new ConfigEntry("log.cleaner.threads", "2"), AlterConfigOp.OpType.SET)));
        changes.put(new ConfigResource(ConfigResource.Type.BROKER, ""), List.of(
            new AlterConfigOp(new ConfigEntry("log.retention.ms", "604800000"), AlterConfigOp.OpType.SET)));
        changes.put(new ConfigResource(ConfigResource.Type.GROUP, "meta-group"), List.of(
            new AlterConfigOp(new ConfigEntry("consumer.session.timeout.ms", "45000"), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(changes).all().get();
        System.out.println("configs");
    }

    static void quotas(Admin admin) throws Exception {
        ClientQuotaEntity user = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "alice"));
        ClientQuotaEntity client = new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "meta-client"));
        ClientQuotaEntity defaultUser = new ClientQuotaEntity(Collections.singletonMap(ClientQuotaEntity.USER, null));
        admin.alterClientQuotas(List.of(
            new ClientQuotaAlteration(user, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0),
                new ClientQuotaAlteration.Op("request_percentage", 12.5))),
            new ClientQuotaAlteration(client, List.of(new ClientQuotaAlteration.Op("consumer_byte_rate", 2048.0))),
            new ClientQuotaAlteration(defaultUser, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 4096.0)))))
            .all().get();
        admin.alterClientQuotas(List.of(new ClientQuotaAlteration(user,
            List.of(new ClientQuotaAlteration.Op("request_percentage", null))))).all().get();
        System.out.println("quotas");
    }

    static void scram(Admin admin) throws Exception {
        admin.alterUserScramCredentials(List.of(
            new UserScramCredentialUpsertion("alice", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096),
                "alice-secret"),
            new UserScramCredentialUpsertion("bob", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192),
                "bob-secret"))).all().get();
        admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("bob", ScramMechanism.SCRAM_SHA_512)))
            .all().get();
        System.out.println("scram");
    }

    static void acls(Admin admin) throws Exception {
        AclBinding read = new AclBinding(new ResourcePattern(ResourceType.TOPIC, TOPIC, PatternType.LITERAL),
            new AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW));
        AclBinding denied = new AclBinding(new ResourcePattern(ResourceType.GROUP, "meta-", PatternType.PREFIXED),
            new AccessControlEntry("User:bob", "127.0.0.1", AclOperation.DESCRIBE, AclPermissionType.DENY));
        admin.createAcls(List.of(read, denied)).all().get();
        admin.deleteAcls(List.of(denied.toFilter())).all().get();
        System.out.println("acls");
    }

    static void produce(String bootstrap) throws Exception {
        Map<String, Object> settings = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);  // idempotent: the broker asks for producer ids
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(settings, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(TOPIC, "k", "v")).get();
        }
        System.out.println("produced");
    }
}
