# ONNX Runtime's session options for a Python embedding server that has no option for them (Infinity): on PYTHONPATH,
# Python imports this module at start-up; with LITSEARCH_ORT_THREADS=N set, every ONNX Runtime session the server
# opens without options of its own is opened as the service opens its in-process ones (src/embedding/
# encoderSession.mjs): N compute threads that sleep between steps instead of busy-waiting, and without the
# SkipLayerNorm fusion, which was slower on CPUs. Without the variable it changes nothing.
import os

_threads = os.environ.get("LITSEARCH_ORT_THREADS")
if _threads:
    import onnxruntime as _ort

    _Session = _ort.InferenceSession

    class _ThreadedSession(_Session):
        def __init__(self, path_or_bytes, sess_options=None, *args, **kwargs):
            if sess_options is None:
                sess_options = _ort.SessionOptions()
                sess_options.intra_op_num_threads = int(_threads)
                sess_options.inter_op_num_threads = 1
                sess_options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                sess_options.add_session_config_entry(
                    "optimization.disable_specified_optimizers", "SkipLayerNormFusion"
                )
            super().__init__(path_or_bytes, sess_options, *args, **kwargs)

    _ort.InferenceSession = _ThreadedSession
