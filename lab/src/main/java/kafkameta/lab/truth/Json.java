package kafkameta.lab.truth;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The little JSON the lab writes: objects in insertion order, strings, numbers, booleans, null, lists and maps.
 * Written by hand so the same source compiles against every Kafka release the lab runs (their Jackson
 * versions differ, and the oldest Streams release brings none of its own).
 */
public final class Json {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    public static Json object() {
        return new Json();
    }

    public Json put(String name, Object value) {
        fields.put(name, value);
        return this;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        write(out, fields);
        return out.toString();
    }

    static void write(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Json) {
            write(out, ((Json) value).fields);
        } else if (value instanceof String) {
            quote(out, (String) value);
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                if (!first) out.append(',');
                first = false;
                quote(out, String.valueOf(entry.getKey()));
                out.append(':');
                write(out, entry.getValue());
            }
            out.append('}');
        } else if (value instanceof Collection) {
            out.append('[');
            boolean first = true;
            for (Object item : (Collection<?>) value) {
                if (!first) out.append(',');
                first = false;
                write(out, item);
            }
            out.append(']');
        } else if (value instanceof java.util.Optional) {
            write(out, ((java.util.Optional<?>) value).orElse(null));
        } else {
            quote(out, value.toString());
        }
    }

    private static void quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
            }
        }
        out.append('"');
    }
}
