"""The progress broker: every listener ends with the experiment, even one that subscribes
after the `finished` event."""

from __future__ import annotations

import asyncio

from tracetax.engine.progress import Phase, Progress, ProgressBroker, ended


def event(phase: Phase, experiment_id: str = "e") -> Progress:
    return Progress(experiment_id=experiment_id, status="running", phase=phase, rounds=1, slots=1)


async def collect(broker: ProgressBroker, experiment_id: str = "e", idle_s: float | None = None) -> list[str]:
    phases = []
    async for item in broker.subscribe(experiment_id, idle_s=idle_s):
        phases.append(item.phase if item is not None else "idle")
        if len(phases) > 10:
            break
    return phases


async def test_subscriber_after_finished_ends_at_once() -> None:
    broker = ProgressBroker()
    broker.publish(event("measuring"))
    broker.publish(event("finished"))
    assert await asyncio.wait_for(collect(broker), 2) == ["finished"]
    assert broker._subscribers == {}


async def test_subscriber_follows_until_finished() -> None:
    broker = ProgressBroker()
    broker.publish(event("warmup"))
    listener = asyncio.create_task(collect(broker))
    await asyncio.sleep(0.01)
    broker.publish(event("measuring", experiment_id="other"))  # another experiment's events are not sent
    broker.publish(event("measuring"))
    broker.publish(event("finished"))
    assert await asyncio.wait_for(listener, 2) == ["warmup", "measuring", "finished"]


async def test_idle_subscriber_is_told_so_and_still_ends() -> None:
    broker = ProgressBroker()
    listener = asyncio.create_task(collect(broker, idle_s=0.05))
    await asyncio.sleep(0.12)
    broker.publish(ended("e", "cancelled", rounds=3))
    phases = await asyncio.wait_for(listener, 2)
    assert phases[-1] == "finished"
    assert phases[:-1] and set(phases[:-1]) == {"idle"}


async def test_events_from_another_thread_reach_the_loop() -> None:
    broker = ProgressBroker()
    broker.bind(asyncio.get_running_loop())
    listener = asyncio.create_task(collect(broker))
    await asyncio.sleep(0.01)
    await asyncio.to_thread(broker.publish_threadsafe, event("finished"))
    assert await asyncio.wait_for(listener, 2) == ["finished"]


async def test_close_ends_every_open_subscription_at_once() -> None:
    broker = ProgressBroker()
    broker.publish(event("measuring", "a"))
    listeners = [asyncio.create_task(collect(broker, experiment_id)) for experiment_id in ("a", "b", "b")]
    await asyncio.sleep(0.05)  # all subscribed and waiting
    broker.publish(event("warmup", "b"))
    broker.close()
    results = await asyncio.wait_for(asyncio.gather(*listeners), 2)
    assert results == [["measuring"], ["warmup"], ["warmup"]]
    assert broker._subscribers == {}
    # A stream opened after the close ends at its start.
    assert await asyncio.wait_for(collect(broker, "c"), 2) == []


async def test_close_reaches_a_listener_whose_queue_is_full() -> None:
    broker = ProgressBroker()

    async def count() -> int:
        return len([item async for item in broker.subscribe("e")])

    listener = asyncio.create_task(count())
    await asyncio.sleep(0.05)
    for _ in range(1500):  # more than its queue holds, before the listener runs again
        broker.publish(event("measuring"))
    broker.close()
    # It ends at once, without first reading what it had not read yet.
    assert await asyncio.wait_for(listener, 2) <= 1
