"""``python -m bench.examples``: regenerate the bundled example files."""

from bench.examples import generate

if __name__ == "__main__":
    for path in generate():
        print(path)
