/**
 * Preloaded (`node -r`) into the worker processes `sqlsweep run` starts, which it spawns with an IPC channel: when the
 * channel closes, the command that started them is gone (killed, crashed), and the worker stops as on SIGTERM,
 * finishing its active jobs, so no orphan keeps serving queues nobody follows. Workers started any other way
 * (`sqlsweep workers`, docker) never load this.
 */
const stopDeadlineMs = 30_000;

if (process.channel) {
  process.channel.unref(); // the channel alone must not keep a worker alive, nor hold up its exit
  process.once('disconnect', () => {
    setTimeout(() => process.exit(1), stopDeadlineMs).unref();
    process.kill(process.pid, 'SIGTERM');
  });
}
