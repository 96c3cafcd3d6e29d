from cli.arkevo import main
from workers.client import exit_process

if __name__ == "__main__":
    exit_process(main())  # the status, whatever the SDK runtime does at exit (workers/client.py)
