import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# The persistent compile cache is tested on its own (tests/runtime/test_disk_cache.py);
# elsewhere every test compiles afresh, whatever the user's cache holds.
os.environ.setdefault("NPXLA_CACHE_DIR", "off")
