package policy

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// Wrappers nest at most maxDepth deep: exactly that many is allowed, one
// more is refused.
func TestNestingDepthBound(t *testing.T) {
	at := strings.Repeat("env ", maxDepth) + "true"
	wantAllowed(t, at, run(t, tcase{line: at}))
	over := "env " + at
	wantRefused(t, over, run(t, tcase{line: over}), NestedCommand, "nested more than 16 deep")
}

// The not-allowed message says why: an empty allow list (fail-closed) or
// a name missing from it, with the --cwd hint for cd only.
func TestNotAllowedMessages(t *testing.T) {
	empty := func(s *workspace.Settings) { s.Commands.Allow = nil }
	v := run(t, tcase{line: "go test", setup: empty})
	wantRefused(t, "go test", v, NotAllowed, "commands.allow is empty, so nothing may run")
	v = run(t, tcase{line: "foo x"})
	wantRefused(t, "foo x", v, NotAllowed, "foo is not in commands.allow [")
	if strings.Contains(v.Message, "is empty") || strings.Contains(v.Message, "no cd in argv mode") {
		t.Errorf("foo: %s", v.Message)
	}
	wantRefused(t, "cd sub", run(t, tcase{line: "cd sub"}), NotAllowed, "there is no cd in argv mode")
}

// Builtins that may evaluate an argument as arithmetic take literal values
// without [ in a shell line; plain literals pass.
func TestArithmeticBuiltinArguments(t *testing.T) {
	for _, line := range []string{"test -f go.mod", "printf %s x", "test -n abc && echo y"} {
		wantAllowed(t, line, run(t, tcase{sh: true, line: line, setup: noArgRules}))
	}
	for _, line := range []string{"test $X -eq 1", "printf %d 'a[1]'", "test a[0] = b"} {
		wantRefused(t, line, run(t, tcase{sh: true, line: line, setup: noArgRules}), UnsupportedSyntax, "as arithmetic")
	}
}

// allowPaths roots are read-only places outside the workspace: a line may
// read from them, not write to them, and not cd into them.
func TestAllowPathsRootsReadOnly(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	makeFixture(t, dir)
	if err := os.WriteFile(filepath.Join(outside, "data.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"allowPaths": [`+strconv.Quote(outside)+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(line string) Verdict {
		ws := openFixture(t, dir)
		ws.Settings.Commands.Interpreter = "sh"
		return Check(ws, Request{Line: line})
	}
	read := "cat < " + outside + "/data.txt"
	wantAllowed(t, read, check(read))
	for _, line := range []string{"echo x > " + outside + "/data.txt", "echo x >> " + outside + "/new.txt"} {
		wantRefused(t, line, check(line), PathEscape, "allowPaths roots are read-only")
	}
	for _, line := range []string{"cd " + outside + " && ls", "cd " + outside} {
		wantRefused(t, line, check(line), PathEscape, "it is an allowPaths root")
	}
}

// cd: its options are skipped, and each target is taken from every
// directory the line may already be in.
func TestCdFollowsEarlierDirectories(t *testing.T) {
	for _, tc := range []struct {
		line  string
		paths []string
	}{
		{"cd -P sub && ls", []string{"sub"}},
		{"cd -L -- sub && ls", []string{"sub"}},
		{"cd sub && cd deeper && ls", []string{"sub", "deeper", "sub/deeper"}},
		{"cd sub; cd deeper > out.log", []string{"sub", "out.log", "sub/out.log", "deeper", "sub/deeper"}}, // the redirection is checked before its command runs
	} {
		v := run(t, tcase{sh: true, line: tc.line})
		wantAllowed(t, tc.line, v)
		if !reflect.DeepEqual(v.Paths, tc.paths) {
			t.Errorf("%q: paths %q, want %q", tc.line, v.Paths, tc.paths)
		}
	}
}

// A line may be in at most maxDirs directories after its cd commands:
// exactly that many is allowed, one more is refused.
func TestCdDirectoryBound(t *testing.T) {
	ws := corpusWS(t)
	var b strings.Builder
	for i := 0; 1<<i < maxDirs; i++ { // each relative cd doubles the directories
		b.WriteString("cd d" + string(rune('a'+i)) + "; ")
	}
	at := b.String() + "ls"
	wantAllowed(t, at, run(t, tcase{sh: true, line: at}))
	over := b.String() + "cd " + filepath.Join(ws.Root, "sub") + "; ls" // one more, the same from everywhere
	wantRefused(t, over, run(t, tcase{sh: true, line: over}), UnsupportedSyntax, "more than 64 directories")
}

// shellQuote leaves words of letters, digits and _./:=@%+,- bare and
// quotes everything else, at every bound of the ranges.
func TestShellQuoteBareCharacters(t *testing.T) {
	for _, s := range []string{"a", "z", "A", "Z", "0", "9", "az09AZ", "_./:=@%+,-", "go.mod"} {
		if got := shellQuote(s); got != s {
			t.Errorf("shellQuote(%q) = %q, want it bare", s, got)
		}
	}
	for s, want := range map[string]string{
		"": "''", "a b": `"a b"`, "`": "'`'", "{": `"{"`, "[": `"["`, "a!": `"a!"`, "\x7f": "\"\x7f\"",
		"$x": "'$x'", "é": `"é"`, "a;b": `"a;b"`, "~": `"~"`, "^": `"^"`, "'": `"'"`, "\\": `'\'`,
	} {
		if got := shellQuote(s); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", s, got, want)
		}
	}
	for r := rune(0); r < 0x80; r++ {
		bare := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:=@%+,-", r)
		if got := shellQuote(string(r)) == string(r); got != bare {
			t.Errorf("shellQuote(%q) bare = %v", r, got)
		}
	}
}

// A word decided at run time is shown as written, at any offset of the line.
func TestDynamicWordsShownAsWritten(t *testing.T) {
	v := run(t, tcase{sh: true, line: "$X go"})
	wantRefused(t, "$X go", v, NotAllowed, "the command name $X is decided at run time ($X)")
	v = run(t, tcase{sh: true, line: "go test ${PKG}"})
	wantRefused(t, "go test ${PKG}", v, DeniedPattern, "the argument ${PKG} of go is decided at run time ($PKG)")
}

// A lone trailing backslash is kept as text by both unescapers.
func TestUnescapeTrailingBackslash(t *testing.T) {
	for s, want := range map[string]string{`a\`: `a\`, `\`: `\`, `a\b`: "ab", `a\\`: `a\`, `a\*`: "a*"} {
		if got, _ := unescape(s); got != want {
			t.Errorf("unescape(%q) = %q, want %q", s, got, want)
		}
	}
	for s, want := range map[string]string{`a\`: `a\`, `\`: `\`, `a\$`: "a$", `a\b`: `a\b`, "a\\\nb": "ab"} {
		if got := unescapeDouble(s); got != want {
			t.Errorf("unescapeDouble(%q) = %q, want %q", s, got, want)
		}
	}
}

// $'…' bodies are decoded for the message as bash would run them.
func TestDecodeANSIC(t *testing.T) {
	for s, want := range map[string]string{`a\nb`: "a\nb", `x`: "x", `\t`: "\t", `a\`: `a\`, `\e[2K`: "\x1b[2K"} {
		if got := decodeANSIC(s); got != want {
			t.Errorf("decodeANSIC(%q) = %q, want %q", s, got, want)
		}
	}
}
