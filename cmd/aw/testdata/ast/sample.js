// dispose(x) in a comment
import { a, b } from "./m.js";

function f(a, b) {
  if (a != null) a.dispose();
  if (a != null) b.dispose();
  const s = "dispose(x)";
  dispose(  a );
  dispose(b /* why */);
  console.log("%d %s", 1, s);
  console.log("none");
  return a + b;
}

class T {
  close() { return this.x + 1; }
  open(x) { console.log(x); }
}

const g = (x) => x + 1;
export default { f, g };
