"""The record a running `beliefstream dev` leaves for client commands, and when it reads as gone."""

import os
import subprocess
import sys

from launch.service_record import (
    ServiceRecord,
    local_url,
    read_service_record,
    remove_service_record,
    write_service_record,
)


def test_a_written_record_reads_back_for_a_live_process(tmp_path):
    record = ServiceRecord("http://127.0.0.1:9123", "bs-dev-key", os.getpid(), "kafka://127.0.0.1:9092")
    path = write_service_record(tmp_path, record)
    assert read_service_record(tmp_path) == record
    assert path.stat().st_mode & 0o077 == 0  # it holds an API key: owner only


def test_a_removed_or_missing_record_is_none(tmp_path):
    assert read_service_record(tmp_path) is None
    write_service_record(tmp_path, ServiceRecord("http://127.0.0.1:1", "k", os.getpid()))
    remove_service_record(tmp_path)
    assert read_service_record(tmp_path) is None
    remove_service_record(tmp_path)  # twice is fine


def test_the_record_of_a_dead_process_is_stale(tmp_path):
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    write_service_record(tmp_path, ServiceRecord("http://127.0.0.1:1", "k", int(finished.stdout)))
    assert read_service_record(tmp_path) is None


def test_a_damaged_record_is_none(tmp_path):
    (tmp_path / "service.json").write_text("{not json")
    assert read_service_record(tmp_path) is None
    (tmp_path / "service.json").write_text('{"url": "http://x"}')
    assert read_service_record(tmp_path) is None


def test_a_wildcard_bind_address_is_reached_on_loopback():
    assert local_url("0.0.0.0", 8080) == "http://127.0.0.1:8080"
    assert local_url("::", 81) == "http://127.0.0.1:81"
    assert local_url("::1", 81) == "http://[::1]:81"
    assert local_url("10.0.0.5", 80) == "http://10.0.0.5:80"
