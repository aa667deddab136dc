package io.policylint.controller;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A topic config key and value judged by one Kafka release's table, as policylint's
 * {@code kafka_configs.status} and {@code problem} judge them: what the key is at topic level
 * (known, deprecated, removed, a broker's name, unknown) and why Kafka refuses the value.
 */
final class Configs {
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");
    private static final Pattern THROTTLED = Pattern.compile("([0-9]+:[0-9]+)?");
    private static final Pattern IV = Pattern.compile("-IV[0-9]+$");
    private static final Pattern BASE = Pattern.compile("[1-9][0-9]*\\.[0-9]+");

    private final String release;
    private final Map<String, Map<String, Object>> table;
    private final Map<String, String> removed;
    private final Map<String, Object> brokerKeys;
    private final List<String> oldVersions;

    Configs(String release, Map<String, Map<String, Object>> table, Map<String, String> removed,
            Map<String, Object> brokerKeys, List<String> oldVersions) {
        this.release = release;
        this.table = table;
        this.removed = removed;
        this.brokerKeys = brokerKeys;
        this.oldVersions = oldVersions;
    }

    String release() {
        return release;
    }

    /** known, deprecated, removed, broker or unknown. */
    String status(String key) {
        Map<String, Object> spec = table.get(key);
        if (spec != null) {
            return Boolean.TRUE.equals(spec.get("deprecated")) ? "deprecated" : "known";
        }
        if (removed.containsKey(key)) {
            return "removed";
        }
        return brokerKeys.containsKey(key) ? "broker" : "unknown";
    }

    String removedIn(String key) {
        return removed.get(key);
    }

    Object brokerTwin(String key) {
        return brokerKeys.get(key);
    }

    /** The value as Kafka parses it for the key (the text itself for a key of no type). */
    Object typed(String key, String value) {
        Map<String, Object> spec = table.get(key);
        if (spec == null || problem(key, value) != null) {
            return value;
        }
        try {
            return parsed(spec, value);
        } catch (IllegalArgumentException e) {
            return value;
        }
    }

    /** Why Kafka refuses the value (null: it accepts it, or the key is no topic config). */
    String problem(String key, String value) {
        Map<String, Object> spec = table.get(key);
        if (spec == null) {
            return null;
        }
        Object parsed;
        try {
            parsed = parsed(spec, value);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        if (spec.containsKey("subset")) {
            @SuppressWarnings("unchecked") List<String> allowed = (List<String>) spec.get("subset");
            for (Object item : (List<?>) parsed) {
                if (!allowed.contains(item)) {
                    return "must be a list of " + String.join(", ", allowed);
                }
            }
            return null;
        }
        if (Boolean.TRUE.equals(spec.get("throttled_replicas"))) {
            List<?> items = (List<?>) parsed;
            if (String.join("", asStrings(items)).equals("*")) {
                return null;
            }
            for (Object item : items) {
                if (!THROTTLED.matcher((String) item).matches()) {
                    return "must be * or a list of partition:broker (0:101,1:102)";
                }
            }
            return null;
        }
        if (Boolean.TRUE.equals(spec.get("metadata_version"))) {
            return metadataVersion((String) parsed, (String) spec.get("release")) ? null
                : "is not a Kafka version (0.10.2, 2.8, 3.0-IV1, ...)";
        }
        @SuppressWarnings("unchecked") List<Object> values = (List<Object>) spec.get("values");
        if (values != null && values.contains(parsed)) {
            return null;
        }
        Number lo = (Number) spec.get("min");
        Number hi = (Number) spec.get("max");
        if (lo != null && compare(parsed, lo) < 0 || hi != null && compare(parsed, hi) > 0) {
            String bounds = lo != null && hi != null ? "from " + number(lo) + " to " + number(hi)
                : lo != null ? "at least " + number(lo) : "at most " + number(hi);
            String also = values != null ? " (or " + String.join(", ", asStrings(values)) + ")" : "";
            return "must be " + bounds + also;
        }
        if (values != null && lo == null && hi == null) {
            return "must be one of " + String.join(", ", asStrings(values));
        }
        return null;
    }

    private static Object parsed(Map<String, Object> spec, String value) {
        String kind = (String) spec.get("type");
        String text = value.strip();
        switch (kind) {
            case "int", "long", "short" -> {
                if (!INTEGER.matcher(text).matches()) {
                    throw new IllegalArgumentException(
                        kind.equals("long") ? "is not a long integer" : "is not an integer");
                }
                String digits = text.replaceFirst("^[-+0]+", "");
                BigInteger number = new BigInteger(text.startsWith("+") ? text.substring(1) : text);
                boolean isLong = kind.equals("long");
                BigInteger lo = BigInteger.valueOf(isLong ? Long.MIN_VALUE : Integer.MIN_VALUE);
                BigInteger hi = BigInteger.valueOf(isLong ? Long.MAX_VALUE : Integer.MAX_VALUE);
                if (digits.length() > 19 || number.compareTo(lo) < 0 || number.compareTo(hi) > 0) {
                    throw new IllegalArgumentException("does not fit Kafka's " + kind + " type");
                }
                return number.longValue();
            }
            case "double" -> {
                try {
                    return Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("is not a number");
                }
            }
            case "boolean" -> {
                String word = text.toLowerCase(java.util.Locale.ROOT);
                if (!word.equals("true") && !word.equals("false")) {
                    throw new IllegalArgumentException("is not true or false");
                }
                return word.equals("true");
            }
            case "list" -> {
                List<String> items = new ArrayList<>();
                if (!text.isEmpty()) {
                    for (String item : text.split(",", -1)) {
                        items.add(item.strip());
                    }
                }
                return items;
            }
            default -> {
                return text;
            }
        }
    }

    private boolean metadataVersion(String text, String specRelease) {
        String[] parts = text.split("\\.", -1);
        int take = text.startsWith("0.") ? 3 : 2;
        String key = String.join(".", java.util.Arrays.copyOf(parts, Math.min(take, parts.length)));
        String base = IV.matcher(key).replaceAll("");
        if (oldVersions.contains(base)) {
            return true;
        }
        if (!BASE.matcher(base).matches()) {
            return false;
        }
        return specRelease == null || Bundle.compareReleases(base, specRelease) <= 0;
    }

    private static int compare(Object value, Number bound) {
        if (value instanceof Long l && bound instanceof Long b) {
            return Long.compare(l, b);
        }
        return Double.compare(((Number) value).doubleValue(), bound.doubleValue());
    }

    private static String number(Number n) {
        return String.valueOf(n);  // a Long as Python prints an int, a Double as a float
    }

    private static List<String> asStrings(List<?> items) {
        List<String> out = new ArrayList<>();
        for (Object item : items) {
            out.add(item instanceof Number n ? number(n) : String.valueOf(item));
        }
        return out;
    }
}
