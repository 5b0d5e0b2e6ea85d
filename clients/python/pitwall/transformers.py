"""Hugging Face Transformers: ``Trainer(..., callbacks=[PitwallCallback()])``.

::

    from pitwall.transformers import PitwallCallback

    trainer = Trainer(model=model, args=args, train_dataset=ds, eval_dataset=ev,
                      callbacks=[PitwallCallback()])      # PITWALL_URL / PITWALL_TOKEN
    trainer.train()

What it reports (to :func:`pitwall.current_run`, or a run it starts with :func:`pitwall.init`
at the start of training: kind ``training``, named after ``args.run_name`` or the output folder,
ended at interpreter exit):

- ``config``: the training arguments (``TrainingArguments.to_dict()``) and, under ``model``, the
  model's config; ``total``: ``max_steps`` in ``steps``.
- Every ``Trainer.log`` call (train loss, learning rate, grad norm, eval metrics, runtimes) as
  metrics at the global step: ``eval_loss`` -> ``eval/loss``, ``loss`` -> ``train/loss``.
- Progress after every optimizer step (done = global step; the server derives rate and ETA).
- Every checkpoint the Trainer saves as an artifact of kind ``checkpoint``: its absolute path,
  size in bytes (all files in the folder) and step.
- Under ``torchrun`` / DDP only the main process (``state.is_world_process_zero``) reports,
  unless ``all_ranks=True`` (each rank then reports as worker ``rank<N>``).

Requires ``transformers`` (imported only when this module is).
"""

import logging
import os
from typing import Any, Dict, Mapping, Optional

from transformers import TrainerCallback

import pitwall

__all__ = ["PitwallCallback"]

_logger = logging.getLogger("pitwall")


def _folder_size_bytes(path: str) -> int:
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(folder, name))
            except OSError:
                pass
    return total


def _metric_key(key: str) -> str:
    if "/" in key:
        return key
    if key.startswith("eval_"):
        return "eval/" + key[len("eval_"):]
    if key.startswith("test_"):
        return "test/" + key[len("test_"):]
    return "train/" + key


class PitwallCallback(TrainerCallback):  # type: ignore[misc]
    """A ``TrainerCallback`` that reports training to Pitwall (see the module's doc).

    ``run``: report to this run instead of :func:`pitwall.current_run` or a new one.
    ``name``, ``key``, ``tags``: for the run it starts (``key`` default ``PITWALL_RUN_KEY``).
    ``all_ranks``: report from every process, not only the main one.
    ``checkpoints``: record saved checkpoints as artifacts (default True).
    """

    def __init__(self, run: "Optional[pitwall.Run]" = None, *, name: Optional[str] = None, key: Optional[str] = None,
                 tags: Optional[list] = None, all_ranks: bool = False, checkpoints: bool = True) -> None:
        self._run = run
        self._name = name
        self._key = key
        self._tags = tags
        self._all_ranks = all_ranks
        self._checkpoints = checkpoints
        self._active = False

    def _target(self) -> "Optional[pitwall.Run]":
        return self._run if self._active else None

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        main = bool(getattr(state, "is_world_process_zero", True))
        if not main and not self._all_ranks:
            return
        config: Dict[str, Any] = {}
        try:
            config = dict(args.to_dict())
        except Exception:
            pass
        model_config = getattr(model, "config", None)
        if model_config is not None and hasattr(model_config, "to_dict"):
            try:
                config["model"] = model_config.to_dict()
            except Exception:
                pass
        run = self._run or pitwall.current_run()
        if run is None:
            name = self._name or getattr(args, "run_name", None) or os.path.basename(os.path.normpath(getattr(args, "output_dir", "") or "")) or "trainer"
            run = pitwall.init(kind="training", name=str(name), config=config, key=self._key, tags=self._tags,
                               total=int(state.max_steps) if state.max_steps and state.max_steps > 0 else None, unit="steps")
            if run is None:  # Pitwall not configured: one warning was logged
                return
        if self._all_ranks:
            rank = int(getattr(args, "process_index", 0) or 0)
            run = run.worker("{}/rank{}".format(run.worker_id, rank))
        self._run = run
        self._active = True
        if config:
            run.event("training arguments: " + ", ".join("{}={}".format(k, v) for k, v in sorted(config.items()) if k != "model")[:10_000], level="debug")
        self._progress(state)

    def _progress(self, state: Any) -> None:
        run = self._target()
        if run is None:
            return
        total = int(state.max_steps) if state.max_steps and state.max_steps > 0 else None
        run.progress(int(state.global_step), total=total, unit="steps")

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._progress(state)

    def on_log(self, args: Any, state: Any, control: Any, logs: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> None:
        run = self._target()
        if run is None or not logs:
            return
        values = {_metric_key(k): v for k, v in logs.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if values:
            run.metrics(int(state.global_step), values)

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        run = self._target()
        if run is None or not self._checkpoints:
            return
        folder = os.path.abspath(os.path.join(args.output_dir, "checkpoint-{}".format(state.global_step)))
        if not os.path.isdir(folder):
            _logger.debug("pitwall: no checkpoint folder at %s", folder)
            return
        run.artifact(folder, kind="checkpoint", size_bytes=_folder_size_bytes(folder), step=int(state.global_step))

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        run = self._target()
        if run is None:
            return
        self._progress(state)
        run.flush(timeout_s=0)  # sends now; the run itself ends with the process (or pitwall.finish())
