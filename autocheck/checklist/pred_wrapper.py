"""CheckList's ``PredictorWrapper``: turn a model function into ``predict_and_confidence_fn``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


class PredictorWrapper:
    @staticmethod
    def wrap_softmax(softmax_fn: Callable[[list], Any]) -> Callable[[list], tuple[np.ndarray, np.ndarray]]:
        """``softmax_fn(examples)`` returns class probabilities; predictions are their argmax."""

        def pred_and_conf(inputs: list) -> tuple[np.ndarray, np.ndarray]:
            confs = np.asarray(softmax_fn(inputs), dtype=float)
            return np.argmax(confs, axis=1), confs

        pred_and_conf.conf = "softmax"  # type: ignore[attr-defined]
        return pred_and_conf

    @staticmethod
    def wrap_predict(predict_fn: Callable[[list], Any]) -> Callable[[list], tuple[Any, np.ndarray]]:
        """``predict_fn(examples)`` returns predictions only; every confidence is 1."""

        def pred_and_conf(inputs: list) -> tuple[Any, np.ndarray]:
            preds = predict_fn(inputs)
            return preds, np.ones(len(preds))

        return pred_and_conf
