"""The central inference edge: wire format, request contract, gRPC transport, batching
and the learner's inference server."""
