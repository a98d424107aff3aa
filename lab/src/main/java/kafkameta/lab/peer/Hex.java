package kafkameta.lab.peer;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/** Bytes as the peer's requests and answers carry them: lower-case hex. */
final class Hex {
    private static final HexFormat HEX = HexFormat.of();

    private Hex() {}

    static ByteBuffer buffer(String hex) {
        return ByteBuffer.wrap(HEX.parseHex(hex));
    }

    static String of(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return HEX.formatHex(bytes);
    }
}
