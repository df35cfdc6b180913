"""The one rule for what a backend says: credentials masked in reasons, outputs (inside lists
and mappings too) and logs; each output and all of them together bounded, cut ones saying so;
a log keeping its end."""

from app.backends.base import RemoteState
from app.deployments import said


def test_credentials_are_masked_in_reasons_outputs_and_logs_whatever_their_shape():
    state = RemoteState(
        "id-1",
        reason="auth failed for token=s3cr3t-token",
        outputs={"nodes": [{"login": "admin:s3cr3t-token"}], "ip": "10.0.0.1"},
    )
    kept = said.state(state, ["s3cr3t-token", "ab"])
    assert kept.reason == "auth failed for token=***"
    assert kept.outputs == {"nodes": [{"login": "admin:***"}], "ip": "10.0.0.1"}
    assert said.log("line 1\nuser ab, pass s3cr3t-token\n", ["s3cr3t-token", "ab"]).text == (
        "line 1\nuser ab, pass ***\n"
    )


def test_outputs_are_cut_one_by_one_and_all_together_and_say_how_large_they_were():
    huge = "x" * (5 * 1024 * 1024)
    kept = said.outputs({"a": huge, **{f"o{i}": "y" * 4000 for i in range(6)}})
    assert said.cut_of(kept["a"]) == len(huge) and len(kept["a"]["text"]) == said.OUTPUT_MAX
    assert sum(len(v["text"]) if said.cut_of(v) else len(v) for v in kept.values()) <= (
        said.OUTPUTS_MAX
    )
    assert said.cut_of(kept["o5"]) == 4000
    # Bounding again keeps what was cut as it was.
    assert said.outputs(kept) == kept


def test_a_long_reason_ends_cut_and_a_long_log_keeps_its_end():
    assert said.reason("r" * 10_000).endswith("…")
    assert len(said.reason("r" * 10_000)) == said.REASON_MAX
    log = said.log("start\n" + "." * said.LOG_MAX + "\nthe error at the end")
    assert log.text.endswith("the error at the end") and log.length > said.LOG_MAX
