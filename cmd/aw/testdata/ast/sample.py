# dispose(x) in a comment
import os


def f(a, b):
    if a is not None:
        a.dispose()
    s = "dispose(x)"
    dispose(  a )
    print("%d %s", 1, s)
    print("none")
    return a + b


class T:
    def close(self):
        return self.x + 1
