package policy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestCanonicalFamilies: each family where the parser and sh can read a
// line differently is refused as unsupported-syntax, naming it; the
// ordinary forms next to each family still pass and print canonically.
func TestCanonicalFamilies(t *testing.T) {
	ws := fixture(t)
	c := &ws.Settings.Commands
	c.Interpreter, c.Deny, c.DenyPatterns = "sh", nil, nil     // values decided at run time pass
	c.Allow = append(c.Allow, "set", "alias", "shopt", "hash") // refused even when allowed
	for _, tc := range []struct{ line, msg string }{
		{"cat <<E\n\\\nE\necho hidden\nE", "line continuation"},
		{"cat <<E\nab\\\nE\necho hidden\nE", "line continuation"},
		{"cat <<E | grep \\\n x\nbody\nE", "line continuation"},
		{"cat <<'E' | grep \\\n x\nbody\nE", "line continuation"},
		{"echo a # c \\\necho hidden", "comment ending in a backslash"},
		{"echo a # c \\", "comment ending in a backslash"},
		{"echo $(ls # )\n)", "comment inside a substitution"},
		{"cat <<-E\n\tx\n\tE", "<<-"},
		{"cat <<E\"\"\nx\nE", "delimiter"},
		{"cat <<$E\nx\n$E", "parse"},
		{"cat <<'E F'\nx\nE F", "delimiter"},
		{"echo $(cat <<E\nx\nE\n)", "inside a substitution"},
		{"cat <<E ; ( ls\n)\necho hidden\nE", "does not start on the line after"},
		{"cat <<E\n$(ls\nE\n)\nE", "substitution spanning lines"},
		{"echo `echo \\`ls\\``", "backtick substitution"},
		{"echo `ls '`'`", "backtick substitution"},
		{`echo "${v:-'$(ls)'}"`, "inside a ${…} operand"},
		{`echo ${v#"x"}`, "inside a ${…} operand"},
		{"echo a 10>x.log", "above 9"},
		{"echo a\r", "carriage return"},
		{"echo a\x1b[2K", "control character"},
		{"echo a\u00a0b", "U+00A0"},
		{"echo a\u200bb", "U+200B"},
		{"echo a\u202eb", "U+202E"},
		{"echo a\u2028b", "U+2028"},
		{"echo a\xffb", "UTF-8"},
		{"echo a；ls", "looks like shell punctuation"},
		{"echo a\uff5cls", "looks like shell punctuation"},
		{"echo \u2018a\u2019", "looks like shell punctuation"},
		{"alias ls=rm", "alias"},
		{"shopt -s extglob", "shopt"},
		{"set -k; echo a=b", "set"},
		{"set -o posix", "set"},
		{"hash -p /bin/rm ls; ls", "hash"},
		{"command alias x=y", "alias"},
		{"echo {a,b}", "brace expansion"},
		{"echo $'a'", "$'…'"},
		{"go test 2>&1 |& cat", "POSIX sh"},
		{"LANG=zh_TW.Big5\ngo test", "assigning LANG"},
		{"LC_ALL=C; go test", "assigning LC_ALL"},
	} {
		v := Check(ws, Request{Line: tc.line})
		if v.Allowed || v.Reason != UnsupportedSyntax || !strings.Contains(v.Message, tc.msg) {
			t.Errorf("%q: allowed=%v %s: %s (want unsupported-syntax naming %q)", tc.line, v.Allowed, v.Reason, v.Message, tc.msg)
		}
		if v.Canonical != "" {
			t.Errorf("%q: a refused line carries a canonical line", tc.line)
		}
	}
	for _, tc := range []struct{ line, canonical string }{
		{"cat <<'EOF' > s.sh\na \\\nb\nEOF", "cat << 'EOF' > s.sh\na \\\nb\nEOF"},
		{"cat <<\\EOF\n$(not run)\nEOF", "cat << \\EOF\n$(not run)\nEOF"},
		{"cat <<EOF\nhello $(echo x)\nEOF\necho done", "cat << EOF\nhello $(echo x)\nEOF\necho done"},
		{"cat <<A <<B\na\nA\nb\nB", "cat << A << B\na\nA\nb\nB"},
		{"go test ./... # run the tests", "go test ./..."},
		{"echo \"${v:-x}\" ${v%.go}", "echo \"${v:-x}\" ${v%.go}"},
		{"set -e; go test", "set -e\ngo test"},
		{"echo `ls`", "echo $(ls)"},
		{"go   test\t./...  2>&1|grep  -n FAIL", "go test ./... 2>&1 | grep -n FAIL"},
		{"ec\\\nho x", "echo x"},
		{"echo 'it’s' \"día\" é", "echo 'it’s' \"día\" é"},
		{"echo a\\\\\ngo test", "echo a\\\\\ngo test"},
	} {
		v := Check(ws, Request{Line: tc.line})
		if !v.Allowed || v.Canonical != tc.canonical {
			t.Errorf("%q: allowed=%v canonical %q (want %q): %s", tc.line, v.Allowed, v.Canonical, tc.canonical, v.Message)
		}
	}
}

// BenchmarkCheckShellLineFamilies checks a 500-command line that holds
// comments, here-documents and substitutions, so every family check runs.
func BenchmarkCheckShellLineFamilies(b *testing.B) {
	ws := fixture(b)
	c := &ws.Settings.Commands
	c.Interpreter, c.Deny, c.DenyPatterns = "sh", nil, nil
	line := strings.Repeat("go test ./... > build.log 2>&1 && echo \"${v:-x}\" $(ls sub) # done\n", 200) +
		strings.Repeat("cat <<'EOF' | grep -n x\nx \\\nEOF\n", 100)
	if v := Check(ws, Request{Line: line}); !v.Allowed || len(v.Commands) != 800 {
		b.Fatalf("%d commands, %s", len(v.Commands), v.Reason+v.Message)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Check(ws, Request{Line: line})
	}
}

// TestCanonicalLocale: non-ASCII text is refused when the spawned shell's
// locale is a multibyte one other than UTF-8 (a Big5 character can end in
// a backslash byte), and allowed under UTF-8 and C.
func TestCanonicalLocale(t *testing.T) {
	ws := fixture(t)
	c := &ws.Settings.Commands
	c.Interpreter, c.InheritEnv = "sh", []string{"PATH", "LANG"}
	line := "echo \"中\\\"; ls\""
	for _, tc := range []struct {
		lang    string
		allowed bool
	}{{"zh_TW.Big5", false}, {"ja_JP.SJIS", false}, {"C.UTF-8", true}, {"en_US.utf8", true}, {"C", true}, {"", true}} {
		t.Setenv("LANG", tc.lang)
		v := Check(ws, Request{Line: line})
		if v.Allowed != tc.allowed || !tc.allowed && (v.Reason != UnsupportedSyntax || !strings.Contains(v.Message, tc.lang)) {
			t.Errorf("LANG=%s: allowed=%v %s %s", tc.lang, v.Allowed, v.Reason, v.Message)
		}
	}
	if v := Check(ws, Request{Line: "LANG=C go test"}); !v.Allowed {
		t.Errorf("a locale for one command is refused: %s", v.Message)
	}
}

// TestPosixPlainParsesAlike holds posixPlain's claim against the parser:
// for generated lines of words, quotes, keywords and operators, every
// line it calls plain prints the same after a bash and a POSIX parse (so
// skipping the POSIX re-parse for it decides nothing differently), and
// the lines the dialects read differently are never called plain.
func TestPosixPlainParsesAlike(t *testing.T) {
	words := []string{"ls", "go", "time", "let", "declare", "export", "local", "function", "select", "coproc", "a=b", "a+=b", "a=(b)",
		"'x y'", `"q r"`, `"$x"`, "-n", "x*", "f?", "@", "%", ",", "[[", "]]", "[x]", "{a}", "{", "}", "!", "$x", "`ls`", "~", "#c", "a\\ b", "(", ")"}
	ops := []string{" ", " ", " ", ";", "; ", " && ", "&&", " || ", " | ", "|", " & ", " > f ", ">f", " >> f ", " >| f ", " < f ", " <> f ", " >& 2 ", " <&0 ", " 2>&1 ",
		" &> f ", "&>>f", " |& ", " ;& ", " ;; ", "\n", " << E\nx\nE\n", " <<< x ", "&&&", ">&>", " >>& f"}
	seed := uint32(1)
	next := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % n
	}
	plain, differ := 0, 0
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for j, n := 0, 1+next(6); j < n; j++ {
			if j > 0 {
				b.WriteString(ops[next(len(ops))])
			}
			b.WriteString(words[next(len(words))])
			if next(2) == 0 {
				b.WriteString(" " + words[next(len(words))])
			}
		}
		line := b.String()
		bash, err := parse(syntax.LangBash, line, false)
		if err != nil {
			continue
		}
		canonical, err := printLine(bash)
		if err != nil {
			continue
		}
		same := false
		if posix, err := parse(syntax.LangPOSIX, canonical, false); err == nil {
			again, err := printLine(posix)
			same = err == nil && again == canonical
		}
		if !same {
			differ++
		}
		if posixPlain(canonical) {
			plain++
			if !same {
				t.Errorf("posixPlain(%q) but bash and POSIX sh read it differently", canonical)
			}
		}
	}
	if plain < 1000 || differ < 1000 {
		t.Errorf("the corpus exercises too little: %d plain lines, %d read differently", plain, differ)
	}
}
