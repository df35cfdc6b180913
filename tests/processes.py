"""Running one test's work in several processes at the same moment, as several portal hosts
or gunicorn workers would: concurrency is proven with processes, not threads alone."""

import multiprocessing


def race(target, arguments: list[tuple], *, parties: int, outcomes: int, method: str = "fork"):
    """Start a process per tuple of ``arguments``, each running ``target(*args, barrier,
    queue)``; the barrier holds ``parties`` waiters so that they all go at once. Returns the
    ``outcomes`` items the processes put on the queue, once every process has exited with 0."""
    context = multiprocessing.get_context(method)
    barrier, queue = context.Barrier(parties), context.Queue()
    processes = [context.Process(target=target, args=(*args, barrier, queue)) for args in arguments]
    for process in processes:
        process.start()
    results = [queue.get(timeout=120) for _ in range(outcomes)]
    for process in processes:
        process.join(30)
        assert process.exitcode == 0
    return results
