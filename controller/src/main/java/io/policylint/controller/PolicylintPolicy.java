package io.policylint.controller;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.server.policy.AlterConfigPolicy;
import org.apache.kafka.server.policy.CreateTopicPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * policylint at the Kafka controller: every topic creation and topic config change judged by
 * the policy bundle {@code policylint.policy} names, in-process. An error refuses the request
 * with the finding's code and message (POLICY_VIOLATION, word for word at the client); a
 * warning is logged. Nothing but PolicyViolationException leaves {@code validate}: a bundle
 * that cannot be loaded refuses every request ({@code fail: closed}, the default) or admits
 * it ({@code fail: open}), as {@code policylint.fail} or the bundle says. The bundle is read
 * again when its file changes.
 *
 * <pre>
 * create.topic.policy.class.name=io.policylint.controller.PolicylintPolicy
 * alter.config.policy.class.name=io.policylint.controller.PolicylintPolicy
 * policylint.policy=/etc/kafka/policylint-bundle.json
 * </pre>
 */
public final class PolicylintPolicy implements CreateTopicPolicy, AlterConfigPolicy {
    public static final String BUNDLE = "policylint.policy";
    public static final String FAIL = "policylint.fail";
    public static final String RELEASE = "policylint.kafka.version";
    private static final Logger LOG = LoggerFactory.getLogger(PolicylintPolicy.class);
    private static final long RECHECK_NANOS = 1_000_000_000L;  // the file's time, once a second

    private Path path;
    private String fail = "closed";
    private String release;
    private volatile Loaded loaded;
    private volatile long checked;

    private record Loaded(Bundle bundle, Configs configs, FileTime stamp, String error) { }

    @Override
    public void configure(Map<String, ?> configs) {
        Object named = configs.get(BUNDLE);
        Object failing = configs.get(FAIL);
        Object version = configs.get(RELEASE);
        release = version != null ? version.toString() : kafkaVersion();
        if (failing != null) {
            fail = "open".equals(failing.toString().trim()) ? "open" : "closed";
        }
        if (named == null || named.toString().isBlank()) {
            loaded = new Loaded(null, null, null, BUNDLE + " is not set: name the bundle "
                + "policylint export --for kafka-controller wrote");
            LOG.error("policylint: {}; fail {}: every request is {}", loaded.error(), fail,
                fail.equals("open") ? "admitted" : "refused");
            return;
        }
        path = Path.of(named.toString().trim());
        loaded = load(null);
        checked = System.nanoTime();
    }

    /** The release of the Kafka this runs in, as its clients jar states it. */
    private static String kafkaVersion() {
        try (var in = CreateTopicPolicy.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            java.util.Properties props = new java.util.Properties();
            props.load(in);
            return props.getProperty("version", "unknown");
        } catch (Exception e) {
            return "unknown";
        }
    }

    private Loaded load(Loaded before) {
        FileTime stamp = null;
        try {
            stamp = Files.getLastModifiedTime(path);
            Bundle bundle = Bundle.load(path);
            if (failFromBundle(before)) {
                fail = bundle.fail;
            }
            Configs configs = bundle.configs(release);
            LOG.info("policylint: {} loaded from {}: {} rules, judged as Kafka {}; fail {}",
                bundle.source, path, bundle.rules, configs.release(), fail);
            return new Loaded(bundle, configs, stamp, null);
        } catch (Exception | LinkageError e) {
            String why = "the bundle " + path + " cannot be loaded: " + e.getMessage();
            LOG.error("policylint: {}; fail {}: every request is {} until it loads", why, fail,
                fail.equals("open") ? "admitted" : "refused");
            return new Loaded(null, null, stamp, why);
        }
    }

    private boolean failFromBundle(Loaded before) {
        return before == null || before.bundle() != null;  // policylint.fail unset: the bundle's
    }

    /** The bundle in force, read again when its file's time changed (checked once a second). */
    private Loaded current() {
        Loaded now = loaded;
        long at = System.nanoTime();
        if (path != null && at - checked > RECHECK_NANOS) {
            checked = at;
            try {
                FileTime stamp = Files.getLastModifiedTime(path);
                if (!stamp.equals(now.stamp())) {
                    synchronized (this) {
                        if (loaded == now) {
                            Loaded fresh = load(now);
                            // a bundle that broke keeps the one in force, if there was one
                            loaded = fresh.bundle() != null || now.bundle() == null ? fresh
                                : new Loaded(now.bundle(), now.configs(), stamp, null);
                        }
                        now = loaded;
                    }
                }
            } catch (Exception e) {
                // the file is gone for a moment (replaced by a rename): keep what is in force
            }
        }
        return now;
    }

    @Override
    public void validate(CreateTopicPolicy.RequestMetadata request) throws PolicyViolationException {
        List<List<Integer>> assignment = null;
        if (request.replicasAssignments() != null && !request.replicasAssignments().isEmpty()) {
            assignment = new ArrayList<>(request.replicasAssignments().values());
        }
        Short rf = request.replicationFactor();
        judge(Request.creation(request.topic(), request.numPartitions(),
            rf == null ? null : (int) rf, assignment, strings(request.configs())));
    }

    @Override
    public void validate(AlterConfigPolicy.RequestMetadata request) throws PolicyViolationException {
        if (request.resource().type() != ConfigResource.Type.TOPIC) {
            return;  // broker settings: the policy judges topics
        }
        judge(Request.change(request.resource().name(), strings(request.configs())));
    }

    private void judge(Request request) {
        try {
            Loaded now = current();
            if (now.bundle() == null) {
                if (fail.equals("closed")) {
                    throw new PolicyViolationException("policylint: " + now.error()
                        + " (fail closed: every request is refused until it loads)");
                }
                return;
            }
            List<Finding> errors = new ArrayList<>();
            for (Finding f : now.bundle().judge(request, now.configs())) {
                if (f.severity().equals("error")) {
                    errors.add(f);
                } else {
                    LOG.warn("policylint: {} of topic {}: {}", request.kind(), request.topic(),
                        f.said());
                }
            }
            if (!errors.isEmpty()) {
                StringBuilder said = new StringBuilder();
                for (Finding f : errors) {
                    said.append(said.length() > 0 ? "; " : "").append(f.said());
                }
                throw new PolicyViolationException(said.toString());
            }
        } catch (PolicyViolationException e) {
            throw e;
        } catch (Throwable t) {  // nothing else may reach the controller
            LOG.error("policylint: judging {} of topic {} failed", request.kind(),
                request.topic(), t);
            if (fail.equals("closed")) {
                throw new PolicyViolationException("policylint could not judge the request ("
                    + t + "); fail closed");
            }
        }
    }

    private static Map<String, String> strings(Map<String, String> configs) {
        Map<String, String> out = new java.util.TreeMap<>();
        if (configs != null) {
            for (Map.Entry<String, String> e : configs.entrySet()) {
                if (e.getValue() != null) {
                    out.put(e.getKey(), e.getValue());
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
    }
}
