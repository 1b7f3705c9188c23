import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a JVM operation's CPU time goes, from the JDK's own Flight Recorder: the operation
 * runs again and again for a while under a recording of {@code jdk.ExecutionSample} (a
 * sample of the running thread's stack every millisecond), and the samples come back as
 * folded stacks (root first, frames {@code package.Class.method}, joined by {@code ;}) and
 * as a table of the hottest methods. cipherlab draws the stacks as the flame graph of its
 * own profiles (one format for both) and sorts them into kinds of work with the same rules.
 *
 * <p>The calls are not JMH's: they run in this JVM, first for a quarter of the time to let
 * the JIT compile them, then a quarter timed without the recorder, the whole time under it
 * ({@code ns_per_op}), and a quarter without it again. The mean of the two unrecorded
 * quarters ({@code baseline_ns_per_op}) brackets the recording, so a JIT still at work
 * moves both sides; the ratio is what recording cost, which cipherlab states.
 */
final class Profile {
    private Profile() {}

    /** How many methods the hot-method table lists. */
    static final int HOT_METHODS = 20;

    /**
     * Samples {@code op} for {@code ms} milliseconds (after {@code ms / 4} to warm up and
     * {@code ms / 4} timed without the recorder; {@code ms / 4} more after it). Each
     * stack starts at the outermost frame of {@code root} (the runner's own frames above it
     * are the same in every sample and say nothing).
     */
    static Map<String, Object> of(Op op, int ms, String root) throws Exception {
        long warmEnd = System.nanoTime() + ms * 250_000L;
        while (System.nanoTime() < warmEnd) Runner.sink ^= op.run();
        double before = unrecorded(op, ms / 4.0);

        Path file = Files.createTempFile("cipherlab-jfr-", ".jfr");
        long calls = 0;
        long elapsed;
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
            recording.setToDisk(true);
            recording.start();
            long t0 = System.nanoTime();
            long end = t0 + ms * 1_000_000L;
            do {
                Runner.sink ^= op.run();
                calls++;
            } while (System.nanoTime() < end);
            elapsed = System.nanoTime() - t0;
            recording.stop();
            recording.dump(file);
        }
        try {
            double after = unrecorded(op, ms / 4.0);
            Map<String, Object> out = summary(RecordingFile.readAllEvents(file), calls, elapsed, ms, root);
            out.put("baseline_ns_per_op", (before + after) / 2);
            return out;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Nanoseconds per call of {@code op}, called for {@code ms} milliseconds (at least once). */
    static double unrecorded(Op op, double ms) throws Exception {
        long calls = 0;
        long t0 = System.nanoTime();
        long end = t0 + (long) (ms * 1e6);
        do {
            Runner.sink ^= op.run();
            calls++;
        } while (System.nanoTime() < end);
        return (double) (System.nanoTime() - t0) / calls;
    }

    /** One operation to profile. */
    interface Op {
        /** One operation; what it returns feeds the runner's sink, so the JIT keeps it. */
        int run() throws Exception;
    }

    /** A hidden class's name holds its address ({@code Pdf$$Lambda$66+0x7f63d00ba6c0}): dropped, so stacks match across runs. */
    static final java.util.regex.Pattern LAMBDA = java.util.regex.Pattern.compile("\\$\\$Lambda\\$[^.]*(\\.[0-9]+)?");

    static Map<String, Object> summary(List<RecordedEvent> events, long calls, long elapsed, int ms, String root) {
        Map<String, Long> stacks = new TreeMap<>();
        Map<String, Long> self = new HashMap<>();
        Map<String, Long> total = new HashMap<>();
        long samples = 0;
        long truncated = 0;
        for (RecordedEvent e : events) {
            if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
            RecordedStackTrace st = e.getStackTrace();
            if (st == null) continue;
            List<String> frames = new ArrayList<>();
            for (RecordedFrame f : st.getFrames()) {
                if (!f.isJavaFrame() || f.getMethod() == null) continue;
                String type = LAMBDA.matcher(f.getMethod().getType().getName()).replaceAll("\\$\\$Lambda");
                frames.add(type + "." + f.getMethod().getName());
            }
            int outermost = frames.lastIndexOf(root);
            if (outermost >= 0) frames = frames.subList(0, outermost + 1);
            if (frames.isEmpty()) continue;
            samples++;
            self.merge(frames.get(0), 1L, Long::sum);
            Set<String> seen = new HashSet<>(frames);
            for (String m : seen) total.merge(m, 1L, Long::sum);
            List<String> rootFirst = new ArrayList<>(frames);
            Collections.reverse(rootFirst);
            if (st.isTruncated()) {
                truncated++;
                rootFirst.add(0, "[stack truncated by JFR]");
            }
            stacks.merge(String.join(";", rootFirst), 1L, Long::sum);
        }
        List<Map.Entry<String, Long>> hot = new ArrayList<>(self.entrySet());
        hot.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        List<Object> table = new ArrayList<>();
        for (Map.Entry<String, Long> h : hot.subList(0, Math.min(HOT_METHODS, hot.size()))) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("method", h.getKey());
            row.put("self", h.getValue());
            row.put("total", total.get(h.getKey()));
            table.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("profiler", "JFR jdk.ExecutionSample, period 1 ms");
        out.put("profile_ms", (long) ms);
        out.put("samples", samples);
        out.put("truncated_stacks", truncated);
        out.put("calls", calls);
        out.put("elapsed_ns", elapsed);
        out.put("ns_per_op", calls == 0 ? null : (double) elapsed / calls);
        out.put("hot_methods", table);
        out.put("stacks", stacks);
        return out;
    }
}
