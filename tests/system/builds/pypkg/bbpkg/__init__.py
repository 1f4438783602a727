def hello():
    return "hello from a pip install"
