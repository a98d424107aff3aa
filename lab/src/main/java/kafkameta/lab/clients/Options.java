package kafkameta.lab.clients;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * `--name value` arguments, so a member takes the same arguments whether it runs in the scenario's JVM or in
 * a JVM of its own (the one a scenario kills with SIGKILL).
 */
public final class Options {
    private final Map<String, String> values = new LinkedHashMap<>();

    public Options(String... args) {
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
            }
            values.put(args[i].substring(2), args[i + 1]);
        }
    }

    public String get(String name) {
        String value = values.get(name);
        if (value == null) throw new IllegalArgumentException("missing --" + name);
        return value;
    }

    public String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    public int getInt(String name, int fallback) {
        return values.containsKey(name) ? Integer.parseInt(values.get(name)) : fallback;
    }

    public List<String> list(String name, String fallback) {
        List<String> items = new ArrayList<>();
        for (String item : get(name, fallback).split(",")) {
            if (!item.isEmpty()) items.add(item);
        }
        return items;
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }
}
