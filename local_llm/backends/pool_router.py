"""litellm's Router over a pool's deployments, and the gate that keeps each server's slots.

Imported only when a pool is first used (it imports litellm and its Router: seconds).

litellm's own per-deployment limit (`max_parallel_requests`) answers a request that finds
every slot taken with a 429 instead of waiting, and its least-busy counts lag behind the
requests in flight: against three one-slot servers, 18 of 30 requests failed that way in a
trial. `SlotGate` is a Router callback instead: its `async_filter_deployments` hands the
routing strategy only the deployments with a free slot (waiting while none has one), and its
`async_pre_call_check` takes the chosen server's slot, waiting if another request took it in
between. Choosing, retrying on another deployment, cooling a failing one down, session
affinity and falling back to a higher `order` stay the Router's.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from local_llm.backends.litellm_backend import (
    RequestArgs,
    _chat_args,
    _common,
    _ollama_args,
    load_litellm,
)
from local_llm.config import ModelConfig
from local_llm.deployments import LITELLM_ROUTING, Deployment
from local_llm.slots import HOLDER, Holder, Slots

litellm = load_litellm()
from litellm import Router  # noqa: E402
from litellm.integrations.custom_logger import CustomLogger  # noqa: E402

GROUP = "pool"
"""The Router's model group name (one Router per pool)."""
_REQUEST_ARGS = ("temperature", "max_tokens", "num_retries")
"""Chat arguments that belong to each request, not to a deployment."""
_ids = itertools.count(1)


@dataclass(frozen=True)
class Member:
    """A deployment as the gate knows it."""

    deployment: Deployment
    server: Hashable


class SlotGate(CustomLogger):
    """Per-server slots for every Router of one PoolBackend (see the module docstring)."""

    def __init__(self, slots: Slots) -> None:
        super().__init__()
        self.name = f"noema-pool-gate-{next(_ids)}"
        """Public and unique: litellm keeps one callback per class and public attributes."""
        self.slots = slots
        self.members: dict[str, Member] = {}

    def add(self, deployment_id: str, deployment: Deployment) -> None:
        self.members[deployment_id] = Member(deployment, deployment.server)
        self.slots.add(deployment.server, deployment.max_parallel)

    async def async_filter_deployments(
        self,
        model: str,
        healthy_deployments: list[dict[str, object]],
        messages: object,
        request_kwargs: dict[str, object] | None = None,
        parent_otel_span: object = None,
    ) -> list[dict[str, object]]:
        mine = [d for d in healthy_deployments if _id(d) in self.members]
        if not mine:
            return healthy_deployments
        holder = HOLDER.get()
        if holder is not None and holder.held:
            # the Router chooses again for a retry: the failed attempt's slot is free now
            # (kept, a retry pinned to the same server would wait for itself)
            self.give_back(holder)

        def free() -> list[dict[str, object]] | None:
            found = [d for d in mine if self.slots.free(self.members[_id(d)].server) > 0]
            return found or None

        return await self.slots.wait_for(free)

    async def async_pre_call_check(
        self, deployment: dict[str, object], parent_otel_span: object = None
    ) -> None:
        deployment_id = _id(deployment)
        member = self.members.get(deployment_id)
        if member is None:
            return
        holder = HOLDER.get()
        if holder is not None and holder.held:
            self.give_back(holder)  # the previous attempt failed; the Router retries here
        await self.slots.wait_for(lambda: self.slots.take(member.server))
        if holder is not None:
            holder.held.append(member.server)
            holder.last = member.deployment.label
        else:  # not a call of ours (no holder to give it back): do not keep the slot
            self.slots.give_back([member.server])

    def give_back(self, holder: Holder) -> None:
        """Free the slots a call holds."""
        held, holder.held = list(holder.held), []
        self.slots.give_back(held)


def _id(deployment: Mapping[str, object]) -> str:
    info = deployment.get("model_info")
    return str(info.get("id", "")) if isinstance(info, dict) else ""


def deployment_params(
    config: ModelConfig, deployment: Deployment, embedding: bool
) -> dict[str, object]:
    """What litellm sends to one deployment besides each request's own arguments: its model,
    server, key and timeout, and for chats its stop sequences and, on Ollama, `num_ctx` and
    `keep_alive` (fixed per role, so the server never reloads the model)."""
    target = config.for_deployment(deployment)
    if embedding:
        if target.model.startswith("ollama_chat/"):  # litellm embeds through ollama/ only
            target = target.replace(model="ollama/" + target.model.removeprefix("ollama_chat/"))
        params: RequestArgs = {**_common(target), **_ollama_args(target)}
    else:
        params = _chat_args(target)
    kept = {key: value for key, value in params.items() if key not in _REQUEST_ARGS}
    return {**kept, "order": deployment.order, "weight": deployment.max_parallel}


def build_router(config: ModelConfig, gate: SlotGate, embedding: bool = False) -> Router:
    """A Router over the config's deployments (their ids registered with the gate)."""
    policy = config.pool
    model_list = []
    for deployment in config.deployments:
        deployment_id = f"{gate.name}-{next(_ids)}"
        gate.add(deployment_id, deployment)
        model_list.append(
            {
                "model_name": GROUP,
                "litellm_params": deployment_params(config, deployment, embedding),
                "model_info": {"id": deployment_id},
            }
        )
    router: Router = Router(  # newer litellm types the construction as Any
        model_list=model_list,
        routing_strategy=LITELLM_ROUTING[policy.routing],
        num_retries=max(0, len(config.deployments) - 1),
        allowed_fails=policy.allowed_fails,
        cooldown_time=policy.cooldown_s,
        retry_after=0,
        optional_pre_call_checks=["session_affinity"] if policy.affinity == "run" else None,
        deployment_affinity_ttl_seconds=policy.affinity_ttl_s,
    )
    # after the Router's own checks (session affinity first: a run waits for its server)
    litellm.logging_callback_manager.add_litellm_callback(gate)
    return router


def remove_gate(gate: SlotGate) -> None:
    """Take the gate out of litellm's callbacks (the client is closing)."""
    litellm.logging_callback_manager.remove_callback_from_all_lists(gate)


def cooling(gate: SlotGate | None, error: BaseException) -> Sequence[str]:
    """Labels of the deployments a 'no deployment available' error says are cooling down."""
    ids = getattr(error, "cooldown_list", None) or []
    members = gate.members if gate is not None else {}
    return [members[i].deployment.label for i in ids if i in members]


def no_deployment_available(error: BaseException) -> bool:
    """Whether the Router found no deployment to send the request to (all cooling down)."""
    return type(error).__name__ == "RouterRateLimitError" or "No deployments available" in str(
        error
    )
