package io.policylint.controller;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.ToNumberPolicy;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelOptions;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.extensions.CelOptionalLibrary;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.Program;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A policy bundle ({@code policylint export --for kafka-controller}), compiled once: each
 * exported rule's CEL, the release tables of the config rules, the exemptions. {@link #judge}
 * gives what {@code policylint lint} finds in the same topic written as a manifest.
 */
final class Bundle {
    static final String FORMAT = "policylint-controller-bundle";
    private static final Gson JSON = new GsonBuilder()
        .setObjectToNumberStrategy(ToNumberPolicy.LONG_OR_DOUBLE).create();
    private static final Cel CEL = CelFactory.standardCelBuilder()
        .setOptions(CelOptions.current().enableOptionalSyntax(true)
            .comprehensionMaxIterations(100_000).build())
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        .addCompilerLibraries(CelOptionalLibrary.INSTANCE, CelExtensions.strings())
        .addRuntimeLibraries(CelOptionalLibrary.INSTANCE, CelExtensions.strings())
        .addVar("topic", SimpleType.DYN).addVar("cluster", SimpleType.DYN)
        .addVar("request", SimpleType.DYN).addVar("variables", SimpleType.DYN)
        .addVar("params", SimpleType.DYN)
        .build();

    final String source;
    final String fail;
    final int rules;
    private final TreeMap<String, Configs> releases = new TreeMap<>(Bundle::compareReleases);
    private final List<ConfigRule> configRules = new ArrayList<>();
    private final List<CelRule> celRules = new ArrayList<>();
    private final List<Exemption> exemptions = new ArrayList<>();
    private final List<String> allowPrefixes;
    private final Set<String> announced;

    private record ConfigRule(String code, String severity, boolean fixed, String message,
                              Set<String> forbidden, Set<String> allowed) { }

    private record Check(Program program, String text, String message, Program said) { }

    private record CelRule(String code, String name, String severity, boolean onAlter,
                           String failurePolicy,
                           String failureMessage, List<Program> matches,
                           List<Map.Entry<String, Program>> variables, List<Check> checks,
                           Map<String, Object> params) { }

    private record Exemption(String rule, List<Pattern> topics, java.time.LocalDate expires) { }

    /** The bundle at {@code path}; IOException or IllegalArgumentException saying why not. */
    @SuppressWarnings("unchecked")
    static Bundle load(Path path) throws IOException {
        Map<String, Object> data;
        try {
            data = JSON.fromJson(Files.readString(path, StandardCharsets.UTF_8), Map.class);
        } catch (com.google.gson.JsonParseException e) {
            throw new IllegalArgumentException(path + " is not JSON: " + e.getMessage());
        }
        if (data == null || !FORMAT.equals(data.get("format"))) {
            throw new IllegalArgumentException(path + " is no policylint controller bundle "
                + "(write one with: policylint export --for kafka-controller POLICY -o FILE)");
        }
        return new Bundle(data);
    }

    @SuppressWarnings("unchecked")
    private Bundle(Map<String, Object> data) {
        source = String.valueOf(data.get("policy"));
        fail = "open".equals(data.get("fail")) ? "open" : "closed";
        Map<String, Object> brokerKeys = (Map<String, Object>) data.get("broker_keys");
        List<String> old = (List<String>) data.getOrDefault("old_versions", List.of());
        Map<String, Map<String, Object>> tables =
            (Map<String, Map<String, Object>>) data.get("releases");
        for (Map.Entry<String, Map<String, Object>> release : tables.entrySet()) {
            releases.put(release.getKey(), new Configs(release.getKey(),
                (Map<String, Map<String, Object>>) release.getValue().get("configs"),
                (Map<String, String>) release.getValue().get("removed"), brokerKeys, old));
        }
        allowPrefixes = (List<String>) data.getOrDefault("allow_prefixes", List.of());
        announced = new HashSet<>((List<String>) data.getOrDefault("announced", List.of()));
        for (Map<String, Object> rule : (List<Map<String, Object>>) data.get("rules")) {
            String code = (String) rule.get("code");
            String severity = (String) rule.get("severity");
            if ("config".equals(rule.get("kind"))) {
                List<String> allowed = (List<String>) rule.get("allowed");
                configRules.add(new ConfigRule(code, severity,
                    Boolean.TRUE.equals(rule.get("fixed")), (String) rule.get("message"),
                    new HashSet<>((List<String>) rule.getOrDefault("forbidden", List.of())),
                    allowed == null ? null : new HashSet<>(allowed)));
                continue;
            }
            List<Program> matches = new ArrayList<>();
            for (Map<String, Object> m : (List<Map<String, Object>>) rule.getOrDefault(
                    "matchConditions", List.of())) {
                matches.add(program(code, (String) m.get("expression")));
            }
            List<Map.Entry<String, Program>> variables = new ArrayList<>();
            for (Map<String, Object> v : (List<Map<String, Object>>) rule.getOrDefault(
                    "variables", List.of())) {
                variables.add(Map.entry((String) v.get("name"),
                    program(code, (String) v.get("expression"))));
            }
            List<Check> checks = new ArrayList<>();
            for (Map<String, Object> v : (List<Map<String, Object>>) rule.get("validations")) {
                String said = (String) v.get("messageExpression");
                checks.add(new Check(program(code, (String) v.get("expression")),
                    (String) v.get("expression"), (String) v.get("message"),
                    said == null ? null : program(code, said)));
            }
            List<String> on = (List<String>) rule.getOrDefault("on", List.of("create", "alter"));
            celRules.add(new CelRule(code, (String) rule.get("name"), severity,
                on.contains("alter"), (String) rule.get("failurePolicy"), (String) rule.get("failureMessage"),
                matches, variables, checks,
                (Map<String, Object>) rule.getOrDefault("params", Map.of())));
        }
        for (Map<String, Object> e : (List<Map<String, Object>>) data.get("exemptions")) {
            List<Pattern> topics = new ArrayList<>();
            for (String regex : (List<String>) e.get("regex")) {
                topics.add(Pattern.compile(regex, Pattern.DOTALL));
            }
            Object expires = e.get("expires");
            exemptions.add(new Exemption((String) e.get("rule"), topics,
                expires == null ? null : java.time.LocalDate.parse(expires.toString())));
        }
        rules = configRules.size() + celRules.size();
    }

    private static Program program(String code, String expression) {
        try {
            return CEL.createProgram(CEL.compile(expression).getAst());
        } catch (Exception e) {
            throw new IllegalArgumentException(code + ": " + expression + ": " + e.getMessage());
        }
    }

    /** The table of a Kafka release: its own, else the newest before it, else the oldest. */
    Configs configs(String version) {
        if (!version.matches("[0-9]+(\\.[0-9]+)+.*")) {
            return releases.lastEntry().getValue();  // a release not said: the newest known
        }
        String[] parts = version.split("[.-]");
        String release = parts.length > 1 ? parts[0] + "." + parts[1] : version;
        Map.Entry<String, Configs> found = releases.floorEntry(release);
        return found != null ? found.getValue() : releases.firstEntry().getValue();
    }

    static int compareReleases(String a, String b) {
        String[] x = a.split("\\."), y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int p = i < x.length ? Integer.parseInt(x[i]) : 0;
            int q = i < y.length ? Integer.parseInt(y[i]) : 0;
            if (p != q) {
                return Integer.compare(p, q);
            }
        }
        return 0;
    }

    /** What the policy finds in the request, judged by the release of {@code configs}. */
    List<Finding> judge(Request request, Configs configs) {
        List<Finding> found = new ArrayList<>();
        judgeConfigs(request, configs, found);
        Map<String, Object> bindings = bindings(request, configs);
        for (CelRule rule : celRules) {
            if (rule.onAlter() || !request.kind().equals("alter")) {
                judgeCel(rule, bindings, request.topic(), found);
            }
        }
        found.removeIf(f -> exempted(f.code(), request.topic()));
        return found;
    }

    private boolean exempted(String code, String topic) {
        java.time.LocalDate today = java.time.LocalDate.now();
        for (Exemption e : exemptions) {
            if (e.rule().equals(code) && (e.expires() == null || !today.isAfter(e.expires()))) {
                for (Pattern p : e.topics()) {
                    if (p.matcher(topic).matches()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private void judgeConfigs(Request request, Configs configs, List<Finding> found) {
        for (ConfigRule rule : configRules) {
            for (Map.Entry<String, String> entry : request.configs().entrySet()) {
                String key = entry.getKey();
                if (allowed(key)) {
                    continue;
                }
                String status = configs.status(key);
                Map<String, String> fields = new LinkedHashMap<>();
                fields.put("topic", request.topic());
                fields.put("key", key);
                fields.put("release", configs.release());
                String severity = rule.severity();
                switch (rule.code()) {
                    case "PL601" -> {
                        if (!status.equals("unknown")) {
                            continue;
                        }
                        fields.put("hint", " (a vendor key? allow its prefix with "
                            + "configs.allow_prefixes in the policy)");
                    }
                    case "PL602" -> {
                        if (!status.equals("broker")) {
                            continue;
                        }
                        Object twin = configs.brokerTwin(key);
                        fields.put("instead", twin != null ? "at topic level use " + twin
                            : "topics have no such setting (it is the broker's alone)");
                    }
                    case "PL603" -> {
                        String problem = configs.problem(key, entry.getValue());
                        if (problem == null) {
                            continue;
                        }
                        fields.put("value", shown(entry.getValue()));
                        fields.put("problem", problem);
                    }
                    case "PL605" -> {
                        if (status.equals("removed")) {
                            fields.put("what", "removed since Kafka " + configs.removedIn(key)
                                + ": Kafka refuses it");
                            severity = rule.fixed() ? severity : "error";
                        } else if (status.equals("deprecated")) {
                            fields.put("what", "deprecated");
                        } else {
                            continue;
                        }
                    }
                    case "PL707" -> {
                        if (rule.forbidden().contains(key)) {
                            fields.put("problem", "is forbidden by the policy");
                        } else if (rule.allowed() != null && !rule.allowed().contains(key)) {
                            fields.put("problem", "is not among the keys the policy allows "
                                + "topics to set");
                        } else {
                            continue;
                        }
                    }
                    default -> {
                        continue;
                    }
                }
                if (severity.equals("error") && announced.contains(configs.release())
                        && !rule.code().equals("PL602") && !rule.code().equals("PL707")) {
                    severity = "warning";  // a release not out yet: never an error
                }
                found.add(new Finding(rule.code(), severity, fill(rule.message(), fields)));
            }
        }
    }

    private boolean allowed(String key) {
        for (String prefix : allowPrefixes) {
            if (key.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static String shown(String value) {
        return value.isEmpty() || !value.equals(value.strip()) || value.length() > 40
            ? "'" + value + "'" : value;
    }

    private static String fill(String template, Map<String, String> fields) {
        String out = template;
        for (Map.Entry<String, String> f : fields.entrySet()) {
            out = out.replace("{" + f.getKey() + "}", f.getValue());
        }
        return out;
    }

    /** The subject maps a CEL rule reads, as policylint's subjects make a manifest's. */
    private static Map<String, Object> bindings(Request request, Configs configs) {
        Map<String, Object> topic = new LinkedHashMap<>();
        topic.put("name", request.topic());
        List<String> stated = new ArrayList<>();
        Integer rf = request.replicationFactor();
        Integer partitions = request.partitions();
        if (request.assignment() != null && !request.assignment().isEmpty()) {
            partitions = request.assignment().size();
            rf = request.assignment().get(0).size();
        }
        if (rf != null && rf > 0) {
            topic.put("rf", (long) rf);
            stated.add("rf");
        }
        if (partitions != null && partitions > 0) {
            topic.put("partitions", (long) partitions);
            stated.add("partitions");
        }
        topic.put("stated", stated);
        Map<String, Object> typed = new LinkedHashMap<>();
        Map<String, Object> described = new LinkedHashMap<>();
        Map<String, String> raw = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : request.configs().entrySet()) {
            Object value = configs.typed(e.getKey(), e.getValue());
            typed.put(e.getKey(), value);
            described.put(e.getKey(), Map.of("value", value, "stated", true, "source", "topic"));
            raw.put(e.getKey(), e.getValue().strip());
        }
        topic.put("config", typed);
        topic.put("configs", described);
        Map<String, Object> bound = new LinkedHashMap<>();
        bound.put("topic", topic);
        bound.put("cluster", Map.of());
        bound.put("request", Map.of("kind", request.kind(), "configs", raw));
        return bound;
    }

    private static void judgeCel(CelRule rule, Map<String, Object> bindings, String topic,
                                 List<Finding> found) {
        Map<String, Object> activation = new LinkedHashMap<>(bindings);
        activation.put("params", rule.params());
        Map<String, Object> variables = new LinkedHashMap<>();
        activation.put("variables", variables);
        for (Map.Entry<String, Program> v : rule.variables()) {
            try {
                variables.put(v.getKey(), v.getValue().eval(activation));
            } catch (CelEvaluationException e) {
                // a value no request states: left out, as an unknown value
            }
        }
        for (Program condition : rule.matches()) {
            try {
                if (!Boolean.TRUE.equals(condition.eval(activation))) {
                    return;
                }
            } catch (CelEvaluationException e) {
                failed(rule, e, topic, found);
                return;
            }
        }
        for (Check check : rule.checks()) {
            Object value;
            try {
                value = check.program().eval(activation);
            } catch (CelEvaluationException e) {
                failed(rule, e, topic, found);
                continue;
            }
            if (Boolean.TRUE.equals(value)) {
                continue;
            }
            String message = check.message();
            if (check.said() != null) {
                try {
                    Object said = check.said().eval(activation);
                    if (said instanceof String s && !s.isBlank()) {
                        message = s;
                    }
                } catch (CelEvaluationException e) {
                    // the message as written, else the expression's
                }
            }
            if (message == null || message.isEmpty()) {
                message = check.text() + " is false";
            }
            String name = "topic " + topic;
            if (!message.contains(name)) {
                message = name + ": " + message;
            }
            found.add(new Finding(rule.code(), rule.severity(), message));
        }
    }

    /** An evaluation that failed: a value no request states is unknown (no finding), any
     * other failure is a finding when the rule's failurePolicy is Fail. */
    private static void failed(CelRule rule, CelEvaluationException e, String topic,
                               List<Finding> found) {
        String why = String.valueOf(e.getMessage());
        if (why.contains("No such key") || why.contains("no such key")
                || !"Fail".equals(rule.failurePolicy())) {
            return;
        }
        String said = rule.failureMessage() != null ? rule.failureMessage() + ": " : "";
        found.add(new Finding(rule.code(), rule.severity(), "topic " + topic + ": " + said + why));
    }
}
