package policy

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// The differential tests hold the checker to what real shells do: every
// line it allows must execute exactly the simple commands it reported (or,
// where || or a failure can skip one, no command it did not report). Each
// allowed line runs, canonical and as submitted, under dash and under bash
// (as sh and as bash) with a private PATH of shims that log their argv.

// shims are the only programs on the private PATH.
var shims = []string{"p1", "p2", "p3", "p4", "p5"}

// shimScript logs its name and arguments, NUL-separated, to a file of its
// own (processes of a pipeline run at once) and succeeds.
const shimScript = `#!/bin/dash
f="$AW_SHIM_LOG/$$"
while [ -e "$f" ]; do f="$f.x"; done
printf '%s\0' "${0##*/}" "$@" >"$f"
`

// shellRig is a workspace for the checker plus the shims and the shells.
type shellRig struct {
	ws     *workspace.Workspace
	bin    string
	shells []shellRun
}

// shellRun is one way /bin/sh may be: a binary and the argv[0] it is
// started as (bash started as sh is in POSIX mode).
type shellRun struct {
	name, path, argv0 string
}

func newShellRig(t testing.TB) *shellRig {
	t.Helper()
	dash, err := exec.LookPath("dash")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("dash is not installed; the differential test needs it (.ci/run installs it)")
		}
		t.Skip("dash is not installed; the differential test needs it (apt-get install dash)")
	}
	r := &shellRig{shells: []shellRun{{"dash", dash, "sh"}}}
	if bash, err := exec.LookPath("bash"); err == nil {
		r.shells = append(r.shells, shellRun{"bash-as-sh", bash, "sh"}, shellRun{"bash", bash, "bash"})
	}
	r.bin = t.TempDir()
	script := strings.Replace(shimScript, "/bin/dash", dash, 1)
	for _, s := range shims {
		if err := os.WriteFile(filepath.Join(r.bin, s), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Every directory a generated cd can reach holds sub, "dir two" and
	// in.txt, so redirections and cd succeed wherever the line is.
	root := t.TempDir()
	dirs := []string{root}
	for depth := 0; depth < 4; depth++ {
		var next []string
		for _, d := range dirs {
			if err := os.WriteFile(filepath.Join(d, "in.txt"), []byte("input\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, sub := range []string{"sub", "dir two"} {
				if depth < 3 {
					if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
						t.Fatal(err)
					}
					next = append(next, filepath.Join(d, sub))
				}
			}
		}
		dirs = next
	}
	ws, err := workspace.Open(workspace.Options{Root: root, Tier: workspace.TierExec})
	if err != nil {
		t.Fatal(err)
	}
	c := &ws.Settings.Commands
	c.Interpreter = "sh"
	c.Allow = shims
	c.Deny, c.DenyPatterns = nil, nil
	r.ws = ws
	return r
}

// run executes text under sh and returns the commands the shims logged,
// each joined by NUL, sorted.
func (r *shellRig) run(t testing.TB, sh shellRun, text string) ([]string, string) {
	logDir, err := os.MkdirTemp("", "aw-shimlog-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(logDir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sh.path, "-c", text)
	cmd.Args[0] = sh.argv0
	cmd.Dir = r.ws.Root
	cmd.Env = []string{"PATH=" + r.bin, "AW_SHIM_LOG=" + logDir, "HOME=/nonexistent", "LC_ALL=C.UTF-8"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // a failing line is fine: what counts is what ran
	if ctx.Err() != nil {
		t.Errorf("%s -c %q did not finish", sh.name, text)
	}
	entries, err := os.ReadDir(logDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(logDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSuffix(string(b), "\x00"))
	}
	sort.Strings(out)
	return out, stderr.String()
}

// mayVary says whether a word the checker reported may be replaced by
// other words at run time (an expansion, a glob): then only the words
// before it are compared.
func mayVary(w string) bool {
	return strings.ContainsAny(w, "$`*?[~")
}

// sameCommand matches a checker command with a logged argv: exactly, or up
// to the first word that may vary.
func sameCommand(checked []string, logged []string, loose bool) bool {
	for i, w := range checked {
		if loose && mayVary(w) {
			return len(logged) >= i
		}
		if i >= len(logged) || logged[i] != w {
			return false
		}
	}
	return len(logged) == len(checked)
}

// compare checks the shims' log against the checker's commands: no logged
// command the checker did not report; with exact, none reported that did
// not run.
func compare(checked [][]string, logged []string, exact bool) string {
	isShim := map[string]bool{}
	for _, s := range shims {
		isShim[s] = true
	}
	var want [][]string
	for _, c := range checked {
		if len(c) > 0 && isShim[c[0]] {
			want = append(want, c)
		}
	}
	// Exact matches first, then a maximum matching of the rest up to
	// their varying words (a greedy pick could pair the wrong two).
	used := make([]bool, len(want))
	var pending [][]string
	for _, l := range logged {
		argv := strings.Split(l, "\x00")
		found := false
		for i, c := range want {
			if !used[i] && sameCommand(c, argv, false) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			pending = append(pending, argv)
		}
	}
	owner := make([]int, len(want)) // the pending argv matched to want[i], or -1
	for i := range owner {
		owner[i] = -1
	}
	var augment func(a int, seen []bool) bool
	augment = func(a int, seen []bool) bool {
		for i, c := range want {
			if used[i] || seen[i] || !sameCommand(c, pending[a], true) {
				continue
			}
			seen[i] = true
			if owner[i] < 0 || augment(owner[i], seen) {
				owner[i] = a
				return true
			}
		}
		return false
	}
	var extra []string
	for a := range pending {
		if !augment(a, make([]bool, len(want))) {
			extra = append(extra, fmt.Sprintf("%q", pending[a]))
		}
	}
	for i := range owner {
		used[i] = used[i] || owner[i] >= 0
	}
	if len(extra) > 0 {
		return "ran commands the checker did not report: " + strings.Join(extra, ", ")
	}
	if exact {
		var missing []string
		for i, c := range want {
			if !used[i] {
				missing = append(missing, fmt.Sprintf("%q", c))
			}
		}
		if len(missing) > 0 {
			return "the checker reported commands that did not run: " + strings.Join(missing, ", ")
		}
	}
	return ""
}

// differential checks one line; it returns whether the checker allowed it.
func (r *shellRig) differential(t testing.TB, line string, exact bool) bool {
	v := Check(r.ws, Request{Line: line})
	if !v.Allowed {
		if v.Reason == "" || v.Message == "" {
			t.Errorf("%q: refused without a reason and message: %+v", line, v)
		}
		return false
	}
	if v.Canonical == "" || !v.Shell {
		t.Errorf("%q: allowed without a canonical line: %+v", line, v)
		return true
	}
	again := Check(r.ws, Request{Line: v.Canonical})
	if !again.Allowed || again.Canonical != v.Canonical {
		t.Errorf("%q: the canonical line %q does not check to itself: %+v", line, v.Canonical, again)
	}
	for si, sh := range r.shells {
		for _, text := range []string{v.Canonical, line} {
			if text == line && si == 2 {
				break // the submitted text under dash and bash as sh is enough
			}
			logged, stderr := r.run(t, sh, text)
			if msg := compare(v.Commands, logged, exact); msg != "" {
				which := "canonical"
				if text == line && text != v.Canonical {
					which = "submitted"
				}
				t.Errorf("%s ran the %s text of %q differently: %s\n  canonical: %q\n  checker:   %q\n  stderr:    %s", sh.name, which, line, msg, v.Canonical, v.Commands, stderr)
			}
			if text == v.Canonical && line == v.Canonical {
				break
			}
		}
	}
	return true
}

// lineGen builds shell lines from the constructs a checked line may hold,
// then mutates some of them with the characters that break parsers.
type lineGen struct {
	r     *rand.Rand
	exact bool // the line has no || or ! and no mutation: every command runs
}

func (g *lineGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *lineGen) word(depth int) string {
	switch g.r.IntN(22) {
	case 0:
		return g.pick(`'a b'`, `'a;b|c&d'`, `'$x'`, "'`p1`'", `'a\'`, `''`, `'#x'`, `'a"b'`)
	case 1:
		return g.pick(`"a b"`, `"a\"b"`, `"a\\b"`, `"\$x"`, `"a'b"`, `""`, `"a\b"`, `"a;b"`, `"#x"`)
	case 2:
		return g.pick(`a\ b`, `\;`, `\'`, `\"`, `\\`, `\#x`, `\$x`, `a\|b`, `\&`, `\>x`)
	case 3:
		return g.pick(`a'b'"c"`, `'a'\''b'`, `"a"'b'c`, `x=y`, `--opt=v`, `-f`, `a#b`, `é`, `x*y`, `a,b`, `{a}`)
	case 4:
		if depth < 2 {
			return "$(" + g.simple(depth+1, false) + ")"
		}
	case 5:
		if depth < 2 {
			return `"$(` + g.simple(depth+1, false) + `)"`
		}
	case 6:
		if depth < 2 {
			return "`" + g.simple(depth+1, false) + "`"
		}
	case 7:
		return g.pick(`$v`, `"$v"`, `${v}`, `${v:-d}`, `${v%x}`, `${#v}`, `$1`, `~`, `~/x`,
			`"${v:-'$(p3 q)'}"`, `${v:-"$(p3 q)"}`, `"${v:-$(p3 q)}"`, `${v#'x'}`, `"${v:-\}}"`)
	case 8:
		return "a\\\nb"
	case 9:
		if depth < 2 {
			return "$(" + g.simple(depth+1, false) + g.pick(" # c\n", "\n", " ;", " # )\n") + ")"
		}
	}
	return g.pick("x", "y", "z", "a.b", "-n", "1", "sub", "./in.txt", "p2")
}

func (g *lineGen) redirect() string {
	switch g.r.IntN(12) {
	case 0:
		return "> out.txt"
	case 1:
		return ">>out.txt"
	case 2:
		return "2>&1"
	case 3:
		return "< in.txt"
	case 4:
		return "2> err.txt"
	case 5:
		return ">| out2.txt"
	case 6:
		return "1>out.txt"
	case 7:
		return "> 'o two.txt'"
	case 8:
		if g.r.IntN(4) == 0 {
			return "10>out.txt"
		}
		return "2>>err.txt"
	case 9:
		return ">&2"
	case 10:
		return "<&-"
	}
	return "> /dev/null"
}

// heredoc is an operator and its body, the body placed after the line.
func (g *lineGen) heredoc(depth int) (string, string) {
	delim := g.pick("E", "EOF", "'E'", `"E"`, `\E`, "E1", `E"x"`, "$E")
	plain := strings.Trim(delim, `'"\`)
	if strings.Contains(delim, `"x"`) {
		plain = "Ex"
	}
	if plain == "$E" {
		plain = "E"
	}
	var body []string
	for i := g.r.IntN(3); i >= 0; i-- {
		switch g.r.IntN(9) {
		case 0:
			body = append(body, "$("+g.simple(depth+1, false)+")")
		case 1:
			body = append(body, "`"+g.simple(depth+1, false)+"`")
		case 2:
			body = append(body, `\`)
		case 3:
			body = append(body, `text \`)
		case 4:
			body = append(body, "$v and ${v} and \\$x")
		case 5:
			body = append(body, plain+" ")
		case 6:
			body = append(body, "\t"+plain)
		case 7:
			body = append(body, "p3 'q'; p4")
		default:
			body = append(body, "plain text; p5 | x")
		}
	}
	op := "<<"
	if g.r.IntN(8) == 0 {
		op = "<<-"
	}
	return op + delim, strings.Join(body, "\n") + "\n" + plain
}

// simple is a simple command: assignments, a name, words, redirections.
// top says whether here-documents may follow the line.
func (g *lineGen) simple(depth int, top bool) string {
	var parts []string
	for i := g.r.IntN(4) - 2; i > 0; i-- {
		parts = append(parts, "v="+g.word(depth))
	}
	name := g.pick(shims...)
	switch g.r.IntN(10) {
	case 0:
		name = "'" + name + "'"
	case 1:
		name = name[:1] + `\` + name[1:]
	case 2:
		name = "command " + name
	}
	parts = append(parts, name)
	for i := g.r.IntN(4); i > 0; i-- {
		parts = append(parts, g.word(depth))
	}
	for i := g.r.IntN(3) - 1; i > 0; i-- {
		parts = append(parts, g.redirect())
	}
	return strings.Join(parts, " ")
}

func (g *lineGen) list(depth int, bodies *[]string) string {
	var b strings.Builder
	for i := g.r.IntN(3); i >= 0; i-- {
		switch {
		case depth < 2 && g.r.IntN(8) == 0:
			b.WriteString("( " + g.list(depth+1, bodies) + " )")
		case depth < 2 && g.r.IntN(8) == 0:
			b.WriteString("{ " + g.list(depth+1, bodies) + "; }")
		case depth < 2 && g.r.IntN(12) == 0:
			b.WriteString(g.pick("{\n", "(\n", "( ") + g.simple(depth+1, false) + "\n" + g.simple(depth+1, false) + g.pick("\n}", "\n)", " )"))
			if s := b.String(); strings.Count(s, "{")+strings.Count(s, "(") < strings.Count(s, "}")+strings.Count(s, ")") {
				g.exact = false
			}
		case g.r.IntN(10) == 0:
			b.WriteString("( cd " + g.pick("sub", "'dir two'", ".", "sub/../sub") + " && " + g.simple(depth, false) + " )")
		case g.r.IntN(12) == 0:
			b.WriteString("! " + g.simple(depth, false))
			g.exact = false
		default:
			b.WriteString(g.simple(depth, false))
		}
		if depth == 0 && bodies != nil && g.r.IntN(6) == 0 {
			op, body := g.heredoc(depth)
			b.WriteString(" " + op)
			*bodies = append(*bodies, body)
		}
		if i > 0 {
			sep := g.pick(" ; ", " && ", " || ", " | ", "\n", ";", "&&", "|", "\n\n", " ; ", " | ", " && ")
			if g.r.IntN(30) == 0 {
				sep = " & "
			}
			if depth == 0 && len(*bodies) > 0 && strings.Contains(sep, "\n") {
				b.WriteString("\n" + strings.Join(*bodies, "\n"))
				*bodies = (*bodies)[:0]
			}
			if strings.Contains(sep, "||") {
				g.exact = false
			}
			b.WriteString(sep)
		}
	}
	return b.String()
}

// nasty are the characters a mutation inserts.
var nasty = []string{`\`, `'`, `"`, "#", ";", "\n", "\r", "$", "(", ")", "{", "}", "<", ">", "&", "|", "`", " ", "\t",
	"*", "\u00a0", "；", "\\\n", "# c \\\n", "<<E\n\\\nE\n", "\u200b", "\x1b", "!", "=", "~", "\u2028"}

// soupTokens are the pieces of token-soup lines: shell syntax thrown
// together, so that the parser meets what no grammar would produce.
var soupTokens = []string{"p1", "p2", "p3", "x", "'", "\"", "`", "$(", ")", "(", "{", "}", ";", "&&", "||", "|", "\n",
	"<<E", "\nE\n", "<<'E'", "#", "\\", "\\\n", "$", "${", "v", ":-", ">", "<", "2>&1", "=", "!", "\t", " ", "cd", "sub", "*", "~"}

func (g *lineGen) soup() string {
	var b strings.Builder
	for i := 3 + g.r.IntN(14); i > 0; i-- {
		b.WriteString(g.pick(soupTokens...))
		if g.r.IntN(2) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func (g *lineGen) line() string {
	if g.r.IntN(5) == 0 {
		g.exact = false
		return g.soup()
	}
	g.exact = true
	var bodies []string
	s := g.list(0, &bodies)
	if len(bodies) > 0 {
		s += "\n" + strings.Join(bodies, "\n")
	}
	if g.r.IntN(6) == 0 {
		s += g.pick(" # a comment", " # ends in \\", " #", "\n# own line\n", " #x\\\n")
	}
	if g.r.IntN(3) == 0 {
		g.exact = false
		for i := g.r.IntN(3); i >= 0; i-- {
			at := g.r.IntN(len(s) + 1)
			switch g.r.IntN(4) {
			case 0: // delete a character
				if at < len(s) {
					s = s[:at] + s[at+1:]
				}
			case 1: // repeat a piece of the line elsewhere
				from := g.r.IntN(len(s) + 1)
				to := min(len(s), from+1+g.r.IntN(12))
				s = s[:at] + s[from:to] + s[at:]
			default:
				s = s[:at] + g.pick(nasty...) + s[at:]
			}
		}
	}
	return s
}

// attacks are lines whose readings differ between the parser and a shell,
// or between shells; each must be refused or run as checked.
var attacks = []string{
	"p1 <<E\n\\\nE\np2 hidden\nE\np3 after",
	"p1 <<E\nab\\\nE\np2 hidden\nE",
	"p1 a # c \\\np2 hidden",
	"# c \\\np2 hidden",
	"p1 <<'E'\n\\\nE\np2 hidden\nE",
	"p1 `p2 \\`p3 x\\``",
	"p1 \"`p2 \"x\"`\"",
	"p1 x\r",
	"p1 x\rp2",
	"p1 10>out.txt",
	"p1 {a,b}",
	"p1 $'a\\'b'",
	"[[ -n x ]] && p1",
	"p1 <<<x",
	"p1 &>out.txt",
	"p1 |& p2",
	"p1 $((1+1))",
	"function f { p1; }",
	"p1 <(p2)",
	"p1 @(a|b)",
	"p1\u00a0x",
	"p1；p2",
	"p1 \u200bx",
	"p1 <<E\n$(p2\nE\n)\nE",
	"p1 $(p2 <<E\nx\nE\n)",
	"p1 <<-E\n\tx\n\tE",
	"p1 <<E\"\"\nx\nE\"\"\nE",
	"p1 <<$E\nx\n$E",
	"alias p1=p2\np1",
	"p1 \\",
	"p1 'a\\\nb'",
	"p1 \"a\\\nb\"",
	"p\\\n1 x",
	"((p1); p2)",
	"$(p1) x",
	"p1 a#b #c",
	"p1 ${v:-$(p2 x)}",
	"v=$(p1) p2",
	"p1 <<E; p2\nbody\nE",
	"p1 <<E\nE",
	"p1 <<E <<F\na\nE\nb\nF",
	"p1 <<E\nx\nE \np2 hidden\nE",
	"p1 <<E\nx\n\tE\np2 hidden\nE",
	"p1 <<E\nx\n  E\np2 hidden\nE",
	"p1 <<E\nx\nE # c\np2 hidden\nE",
	"( p1 <<E\nx\nE\n)",
	"( p1 <<E\nx\nE)\np2 hidden\nE\n)",
	"{ p1 <<E\nx\nE\n}",
	"p1 <<E | p2\nx\nE",
	"p1 <<E\n`p2 x`\nE",
	"p1 <<E\n\\$(p2 x)\nE",
	"p1 <<E\n\\\\$(p2 x)\nE",
	"p1 <<E\n\"$(p2 x)\"\nE",
	"p1 <<E\n'$(p2 x)'\nE",
	"p1 <<E\n${v:-$(p2 x)}\nE",
	"p1 <<E\n$(p2 ')')\nE",
	"p1 <<E\n$(p2 '\nE\n')\nE",
	"p1 <<'E'\n$(p2 x)\nE",
	"p1 <<\"E\"\n$(p2 x)\nE",
	"p1 <<\\E\n$(p2 x)\nE",
	"p1 <<E\n`p2 \\`p3\\``\nE",
	"p1 <<E\n$(p2 <<F\ny\nF\n)\nE",
	"p1 <<if\nx\nif",
	"p1 $(p2 # )\n)",
	"p1 `p2 # x`",
	"p1 \"${v:-'$(p2 x)'}\"",
	"p1 ${v:-'$(p2 x)'}",
	"p1 \"${v:-\"$(p2 x)\"}\"",
	"p1 ${v:-`p2 x`}",
	"p1 \"${v:-'}'}\"",
	"p1 ${v#'$(p2)'}",
	"p1 $((p2) )",
	"p1 $( (p2) )",
	"p1 $(p2)$(p3)",
	"p1 \"$(p2 \"$(p3)\")\"",
	"p1 $(<in.txt)",
	"{ p1 } ; }",
	"! p1 | p2",
	"p1 && ! p2",
	"p1 <> in.txt",
	"exec p1; p2",
	"command -p p1",
	"p1 2>&1 >&-",
	"p1 \\#",
	"p1#x",
	"p1 #x\np2",
	"v=~:~ p1",
	"p1 $v[1]",
	"p1 a{b}c",
	"p1 {,}",
	"p1 x\u0301",
	"p1 \u2018x\u2019",
	"p1 \u2013rf",
	"p1 x \\\n",
	"p1 '\\''",
	"p1 \\\\",
	"set -o posix; p1",
	"set -k; p1 a=b",
	"shopt -s extglob\np1 @(a|b)",
	"hash -p /bin/sh p1; p1",
	"p1 \"$(p2 ')')\"",
	"p1 \"`p2 ')'`\"",
	"p1 $(p2 \")\")",
	"p1 `p2 \")\"`",
	"p1 \"a\\\n$(p2)\"",
	"p1 $(p2\n)",
	"p1 $(\np2\n)",
	"p1 <<E\na\\\\\nE\np2",
	"p1 <<E\n\\\\\nE\np2",
	"p1 &&\np2",
	"p1 |\n p2",
	"p1 \\\n| p2",
	"p1 2>&1-",
	"p1 > /dev/tcp/127.0.0.1/9",
	"p1 $10 ${10}",
	"p1 !p2",
	"!p1",
	"p1 ${v:=x}",
	"p1 <<E ; ( p2\n)\np3 hidden\nE",
	"p1 <<'E' ; { p2\n}\np3 hidden\nE",
	"p1 <<E p2\nx\nE",
	"p1 <<E\nx\nE\n\n",
	"p1 <<E\n\nE",
	"p1 <<E1 <<E2\na\nE1\nb\nE2\np2",
	"p1 <<E; p2 <<F\na\nE\nb\nF",
	"( p1 <<E\na\nE\n) | p2",
	"p1 $(p2 \\\n)",
	"p1 \"$(p2 # x\n)\"",
	"p1 ${v:-$(p2 x)} \"${v:-$(p3 y)}\"",
	"p1 \"${v:-\\}}\"",
	"p1 \"${v:-a b}\"",
	"p1 $(p2 `p3`)",
	"p1 \"`p2`\"",
	"v=$(p1) v2=`p2` p3",
	"v=1\np1 $v",
	"p1 \u0085x",
	"p1 \ufeffx",
	"p1 \u202ex",
	"p1 <<'E' || p2 \\\\ ; p3\nbody\nE",
	"p1 <<E || p2 \\\\\nbody \\\\\nE",
	"p1 ${v:-$(p2 '}')}",
	"p1 ${v:-$(p2 })}",
	"p1 \"$(p2 \"}\")\"",
	"( p1 <<E )\nx\nE",
	"p1 <<E && p2 <<F\na\nE\nb\nF",
	"p1 <<E\nE\\\nE\np2 hidden\nE",
	"'if' p1",
	"\\p1 x",
	"p1 2>&-",
	"exec 3>out.txt; p1 >&3",
	"builtin p1 x",
	"command -v p1",
	"p1 x; p2 y & p3 z",
	"p1 \"$(p2 # \")\"\n)\"",
	"p1 $(p2 # $(\n)",
	"p1 `p2 # `",
	"p1 <<E # c\nbody\nE",
	"p1 \\\n#c\np2",
	"p1 <<E\\\nF\nbody\nEF\np2",
	"p1 <\\\n<E\nbody\nE",
	"p1 <<'E'\na \\\nb\nE\np2 x \\\ny",
	"p1 <<'E' | p2 \\\n x\nbody\nE",
	"p1 x \\\n <<E\nbody\nE",
	"p1 <<E |\nbody\nE\np2",
	"p1 <<E &&\nbody\nE\np2",
	"p1 <<E ||\nbody\nE\np2",
	"p1 <<E; p2 <<E\na\nE\nb\nE",
	"p1 <<E\n$(p2)$(p3)\nE",
	"p1 <<E\n${v}$(p2 x)`p3 y`\nE",
	"p1 $é x",
	"p1 ${v-x} ${v%%x} ${v##x}",
	"p1 ｐ2",
	"ｐ1 x",
}

func TestShellDifferentialAttacks(t *testing.T) {
	r := newShellRig(t)
	allowed := 0
	for _, line := range attacks {
		if r.differential(t, line, false) {
			allowed++
		}
	}
	t.Logf("%d attack lines, %d allowed and run as checked under %d shells", len(attacks), allowed, len(r.shells))
}

// TestShellDifferentialCorpus generates lines from a fixed seed and checks
// every allowed one against the shells, in parallel.
func TestShellDifferentialCorpus(t *testing.T) {
	r := newShellRig(t)
	n := 300
	if testing.Short() {
		n = 100
	}
	if s := os.Getenv("AW_SHELL_DIFF_LINES"); s != "" { // a longer run: AW_SHELL_DIFF_LINES=20000
		fmt.Sscan(s, &n)
	}
	seed := uint64(10)
	if s := os.Getenv("AW_SHELL_DIFF_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	g := &lineGen{r: rand.New(rand.NewPCG(seed, 2))}
	type job struct {
		line  string
		exact bool
	}
	jobs := make(chan job)
	var mu sync.Mutex
	allowed, exactRuns := 0, 0
	reasons := map[string]int{}
	var wg sync.WaitGroup
	for w := 0; w < 2*runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				ok := r.differential(t, j.line, j.exact)
				mu.Lock()
				if ok {
					allowed++
					if j.exact {
						exactRuns++
					}
				} else {
					reasons[Check(r.ws, Request{Line: j.line}).Reason]++
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		line := g.line()
		jobs <- job{line, g.exact}
	}
	close(jobs)
	wg.Wait()
	t.Logf("%d generated lines: %d allowed (%d compared exactly), refused %v", n, allowed, exactRuns, reasons)
	if allowed < n/5 {
		t.Errorf("only %d of %d generated lines were allowed: the corpus no longer exercises the shells", allowed, n)
	}
}

// FuzzShellReadsAsChecked: whatever line the checker allows runs no
// command under dash or bash that the checker did not report.
// Its committed seeds (testdata/fuzz) are attack families; the attacks
// list runs in TestShellDifferentialAttacks, so it is not added again.
func FuzzShellReadsAsChecked(f *testing.F) {
	g := &lineGen{r: rand.New(rand.NewPCG(1, 1))}
	for i := 0; i < 20; i++ {
		f.Add(g.line())
	}
	r := newShellRig(f)
	f.Fuzz(func(t *testing.T, line string) {
		r.differential(t, line, false)
	})
}
