#!/usr/bin/env bash
# Conformance over ../shared/parquet-testing/data against committed pyarrow outputs.
cd "$(dirname "$0")/../.." && exec python3 tests/cli/conformance.py
