// dispose(x) in a comment
class Sample {
  void f(T a, T b) {
    if (a != null) a.dispose();
    String s = "dispose(x)";
    dispose(  a );
    System.out.println("x" + s);
  }
  int close() { return x + 1; }
}
