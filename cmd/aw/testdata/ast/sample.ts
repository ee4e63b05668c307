interface Named { name: string }
function greet(p: Named | null): string {
  if (p != null) return "hi " + p.name;
  console.log("none", p);
  return "";
}
const xs: number[] = [1, 2, 3].map((x) => x + 1);
