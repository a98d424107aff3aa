package kafkameta.lab.clients;

import java.util.concurrent.CountDownLatch;

/**
 * A client that polls in a thread of its own (a {@link Member}, a {@link ShareMember}) until it is told to stop:
 * {@code run()} polls while {@link #stopping} is false, closes its client and then counts {@link #finished}
 * down; {@link #stopAndWait} ends the loop and waits until the client is closed, so what follows a stop in a
 * scenario happens after the client has left.
 */
abstract class PollingClient implements Runnable {
    protected final CountDownLatch finished = new CountDownLatch(1);
    protected volatile boolean stopping;
    private Thread thread;

    /** Run {@code run()} in a thread named {@code threadName}. */
    protected void startPolling(String threadName) {
        thread = new Thread(this, threadName);
        thread.start();
    }

    /** End the poll loop ({@code wakeup} interrupts a poll in progress), then wait until the client is closed. */
    protected void stopAndWait(Runnable wakeup) {
        stopping = true;
        wakeup.run();
        try {
            finished.await();
            if (thread != null) thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
