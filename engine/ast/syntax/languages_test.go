package syntax_test

import (
	"errors"
	"testing"

	"github.com/agentic-workspace/aw/engine/ast/syntax"
)

// langCase is one language's fixture: a source and patterns with the
// matches each must find (text|CAPTURE=text).
type langCase struct {
	lang  *syntax.Language
	src   string
	finds map[string][]string
	// scaffolds: pattern -> the rung that must accept it
	scaffolds map[string]string
	bad       string // a pattern no rung accepts
}

var langCases = []langCase{
	{
		lang: syntax.JavaScript,
		src: `// dispose(x) in a comment
if (a != null) a.dispose();
if (a != null) b.dispose();
const s = "dispose(x)";
dispose(  a );
console.log("%d", 1, s);
class T { close() { return 1; } }
`,
		finds: map[string][]string{
			"if ($X != null) $X.dispose()": {"if (a != null) a.dispose();|X=a"},
			"dispose(x)":                   nil,
			"dispose($X)":                  {"dispose(  a )|X=a"},
			"console.log($F, $$$ARGS)":     {`console.log("%d", 1, s)|F="%d"|ARGS=1, s`},
			"close() { $$$B }":             {"close() { return 1; }|B=return 1;"},
		},
		scaffolds: map[string]string{"dispose($X)": "statement", "close() { $$$B }": "class member", "class $C { $$$ }": "statement"},
		bad:       "if ( {",
	},
	{
		lang: syntax.TypeScript,
		src: `// dispose(x)
function f(a: T | null): void {
  if (a != null) a.dispose();
  const s: string = "dispose(x)";
  dispose(a as T);
}
interface I { name: string }
`,
		finds: map[string][]string{
			"if ($X != null) $X.dispose()":    {"if (a != null) a.dispose();|X=a"},
			"dispose(x)":                      nil,
			"dispose($X as T)":                {"dispose(a as T)|X=a"},
			"function $F($$$P): void { $$$ }": {"function f(a: T | null): void {\n  if (a != null) a.dispose();\n  const s: string = \"dispose(x)\";\n  dispose(a as T);\n}|F=f|P=a: T | null"},
		},
		scaffolds: map[string]string{"dispose($X)": "statement", "(x: number): string": "declaration"},
		bad:       "if ( {",
	},
	{
		lang: syntax.TSX,
		src:  "const e = <Button onClick={go}>hi</Button>;\n// <Button onClick={go}>\n",
		finds: map[string][]string{
			"<Button onClick={$H}>$$$C</Button>": {"<Button onClick={go}>hi</Button>|H=go|C=hi"},
		},
		scaffolds: map[string]string{"<B/>": "statement"},
		bad:       "<a",
	},
	{
		lang: syntax.Python,
		src: `# dispose(x) in a comment
if a is not None:
    a.dispose()
if a is not None:
    b.dispose()
s = "dispose(x)"
dispose(  a )
print("%d", 1, s)
class T:
    def close(self):
        return 1
`,
		finds: map[string][]string{
			"if $X is not None:\n    $X.dispose()": {"if a is not None:\n    a.dispose()|X=a"},
			"dispose(x)":                           nil,
			"dispose($X)":                          {"dispose(  a )|X=a"},
			"print($F, $$$ARGS)":                   {`print("%d", 1, s)|F="%d"|ARGS=1, s`},
			"def close(self):\n    $$$B":           {"def close(self):\n        return 1|B=return 1"},
		},
		scaffolds: map[string]string{"dispose($X)": "statement", "def close(self):\n    $$$B": "statement"},
		bad:       "if ( :",
	},
	{
		lang: syntax.Rust,
		src: `// dispose(x) in a comment
fn f(a: Option<T>) {
    if let Some(x) = a { x.dispose(); }
    let s = "dispose(x)";
    dispose(  a );
    println!("{}", 1);
}
impl T { fn close(&self) -> i32 { 1 } }
`,
		finds: map[string][]string{
			"if let Some($X) = $A { $X.dispose(); }": {"if let Some(x) = a { x.dispose(); }|X=x|A=a"},
			"dispose(x)":                             nil,
			"dispose($X)":                            {"dispose(  a )|X=a"},
			"fn $N(&self) -> i32 { $$$ }":            {"fn close(&self) -> i32 { 1 }|N=close"},
		},
		scaffolds: map[string]string{"dispose($X)": "statement", "fn $N(&self) -> i32 { $$$ }": "statement", "struct $S { $F: $T }": "statement"},
		bad:       "if ( {",
	},
	{
		lang: syntax.Java,
		src: `// dispose(x) in a comment
class T {
  void f() {
    if (a != null) a.dispose();
    if (a != null) b.dispose();
    String s = "dispose(x)";
    dispose(  a );
  }
  int close() { return 1; }
}
`,
		finds: map[string][]string{
			"if ($X != null) $X.dispose();": {"if (a != null) a.dispose();|X=a"},
			"dispose(x);":                   nil,
			"dispose($X);":                  {"dispose(  a );|X=a"},
			"int close() { $$$B }":          {"int close() { return 1; }|B=return 1;"},
		},
		scaffolds: map[string]string{"dispose($X);": "statement", "$A + $B": "statement", "int close() { $$$B }": "class member"},
		bad:       "if ( {",
	},
	{
		lang: syntax.C,
		src: `/* dispose(x) in a comment */
void f(T *a) {
  if (a != NULL) dispose(a);
  if (a != NULL) dispose(b);
  const char *s = "dispose(x)";
  printf("%d", 1, s);
}
`,
		finds: map[string][]string{
			"if ($X != NULL) dispose($X);": {"if (a != NULL) dispose(a);|X=a"},
			"dispose(x)":                   nil,
			"printf($F, $$$ARGS)":          {`printf("%d", 1, s)|F="%d"|ARGS=1, s`},
		},
		scaffolds: map[string]string{"dispose($X);": "statement", "int $X;": "statement", "void $F(T *a) { $$$ }": "statement"},
		bad:       "if ( {",
	},
	{
		lang: syntax.Bash,
		src: `# rm -rf x in a comment
rm -rf "$dir"
echo "rm -rf x"
f() { echo one two; }
`,
		finds: map[string][]string{
			"rm -rf $X":    {`rm -rf "$dir"|X="$dir"`},
			"rm -rf x":     nil,
			"echo $$$A":    {`echo "rm -rf x"|A="rm -rf x"`, "echo one two|A=one two"},
			"$F() { $$$ }": {"f() { echo one two; }|F=f"},
		},
		scaffolds: map[string]string{"rm -rf $X": "statement"},
		bad:       "if then fi ((",
	},
}

func TestLanguageFixtures(t *testing.T) {
	for _, c := range langCases {
		t.Run(c.lang.ID, func(t *testing.T) {
			for pattern, w := range c.finds {
				want(t, find(t, c.lang, pattern, c.src), w...)
			}
			for pattern, rung := range c.scaffolds {
				p, err := syntax.Compile(c.lang, pattern)
				if err != nil {
					t.Errorf("%q: %v", pattern, err)
				} else if p.Scaffold != rung {
					t.Errorf("%q parsed as %s, want %s", pattern, p.Scaffold, rung)
				}
			}
			_, err := syntax.Compile(c.lang, c.bad)
			var u *syntax.UnparseableError
			if !errors.As(err, &u) || u.Lang != c.lang.ID || len(u.Tried) != len(c.lang.Scaffolds) {
				t.Errorf("%q: err = %v, want unparseable naming %s and its %d scaffolds", c.bad, err, c.lang.ID, len(c.lang.Scaffolds))
			}
		})
	}
}
