package io.policylint.controller;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.ToNumberPolicy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The plugin's verdicts outside a controller, for the tests and the bench:
 * {@code java -jar policylint-controller.jar BUNDLE RELEASE} reads one request per line of
 * standard input ({"kind", "topic", "partitions", "rf", "assignment", "configs"}) and prints
 * one line of JSON per request: its findings. {@code --bench N} judges the requests N times
 * over and prints the latency of one validation (p50, p99, in microseconds).
 */
public final class Verdicts {
    private static final Gson JSON = new GsonBuilder()
        .setObjectToNumberStrategy(ToNumberPolicy.LONG_OR_DOUBLE).disableHtmlEscaping().create();

    private Verdicts() {
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        Bundle bundle = Bundle.load(Path.of(args[0]));
        Configs configs = bundle.configs(args[1]);
        List<Request> requests = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> r = JSON.fromJson(line, Map.class);
            Map<String, String> cfg = new TreeMap<>();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) r.getOrDefault("configs",
                    Map.of())).entrySet()) {
                cfg.put(e.getKey(), String.valueOf(e.getValue()));
            }
            List<List<Integer>> assignment = null;
            if (r.get("assignment") != null) {
                assignment = new ArrayList<>();
                for (List<Number> replicas : (List<List<Number>>) r.get("assignment")) {
                    List<Integer> ids = new ArrayList<>();
                    replicas.forEach(n -> ids.add(n.intValue()));
                    assignment.add(ids);
                }
            }
            requests.add("alter".equals(r.get("kind"))
                ? Request.change((String) r.get("topic"), cfg)
                : Request.creation((String) r.get("topic"), number(r.get("partitions")),
                    number(r.get("rf")), assignment, cfg));
        }
        if (args.length > 3 && args[2].equals("--bench")) {
            bench(bundle, configs, requests, Integer.parseInt(args[3]));
            return;
        }
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        for (Request request : requests) {
            List<Map<String, String>> found = new ArrayList<>();
            for (Finding f : bundle.judge(request, configs)) {
                Map<String, String> one = new LinkedHashMap<>();
                one.put("code", f.code());
                one.put("severity", f.severity());
                one.put("message", f.message());
                found.add(one);
            }
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("topic", request.topic());
            line.put("findings", found);
            out.println(JSON.toJson(line));
        }
        out.flush();
    }

    private static Integer number(Object value) {
        return value == null ? null : ((Number) value).intValue();
    }

    private static void bench(Bundle bundle, Configs configs, List<Request> requests, int total) {
        for (int i = 0; i < Math.min(total, 20_000); i++) {  // the JIT warmed up first
            bundle.judge(requests.get(i % requests.size()), configs);
        }
        long[] took = new long[total];
        for (int i = 0; i < total; i++) {
            long start = System.nanoTime();
            bundle.judge(requests.get(i % requests.size()), configs);
            took[i] = System.nanoTime() - start;
        }
        Arrays.sort(took);
        System.out.printf("p50 %.1f p99 %.1f%n", took[total / 2] / 1000.0,
            took[(int) (total * 0.99)] / 1000.0);
    }
}
