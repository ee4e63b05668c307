package policy

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/workspace"
	"mvdan.cc/sh/v3/syntax"
)

// The tests in this file pin rules that the mutation run (scripts/mutants)
// showed no other test defending: each condition below, flipped or moved
// by one, changes a verdict, a message or a helper's answer.

// shCheck checks line in interpreter "sh" in the shared corpus workspace.
func shCheck(t *testing.T, line string) Verdict {
	t.Helper()
	return run(t, tcase{sh: true, line: line})
}

// noArgRules turns argument rules off (no deny, no denyPatterns), so
// values decided at run time pass and the rule under test is the one that
// answers.
func noArgRules(s *workspace.Settings) { s.Commands.Deny, s.Commands.DenyPatterns = nil, nil }

// wantAllowed fails unless v allows the line.
func wantAllowed(t *testing.T, line string, v Verdict) {
	t.Helper()
	if !v.Allowed {
		t.Errorf("%q: refused %s: %s (want allowed)", line, v.Reason, v.Message)
	}
}

// wantRefused fails unless v refuses for reason with a message holding msg.
func wantRefused(t *testing.T, line string, v Verdict, reason, msg string) {
	t.Helper()
	if v.Allowed || v.Reason != reason || !strings.Contains(v.Message, msg) {
		t.Errorf("%q: allowed=%v %s: %s (want %s naming %q)", line, v.Allowed, v.Reason, v.Message, reason, msg)
	}
}

// argv mode: the commands a refused line meant are the non-empty segments
// between its operators, the advice for a leading operator does not read
// a command before it, and a leading `cd DIR &&` gets the --cwd advice.
func TestArgvOperatorSegments(t *testing.T) {
	for _, tc := range []struct {
		line string
		cmds [][]string
		msg  string
	}{
		{"go test ;", [][]string{{"go", "test"}}, "run each command on its own"},
		{"; go test", [][]string{{"go", "test"}}, "run each command on its own"},
		{"&& go test", [][]string{{"go", "test"}}, "run each command on its own"},
		{"go vet && go test", [][]string{{"go", "vet"}, {"go", "test"}}, "run `go vet`, then `go test`"},
		{"cd sub && go test", [][]string{{"cd", "sub"}, {"go", "test"}}, "with --cwd sub"},
		{"go test > out.log", [][]string{{"go", "test"}}, "redirection"},
	} {
		v := run(t, tcase{line: tc.line})
		wantRefused(t, tc.line, v, Metacharacter, tc.msg)
		if !reflect.DeepEqual(v.Commands, tc.cmds) {
			t.Errorf("%q: commands %q, want %q", tc.line, v.Commands, tc.cmds)
		}
	}
}

// A file descriptor of two digits is refused even on a line with no other
// reason to walk it; one digit is fine, a comment or not.
func TestDescriptorDigits(t *testing.T) {
	for _, line := range []string{"echo a 10>x.log", "echo a 19>x.log", "echo a 99>x.log", "echo a 90<go.mod"} {
		wantRefused(t, line, shCheck(t, line), UnsupportedSyntax, "above 9")
	}
	for _, line := range []string{"echo a 2>x.log # note", "echo a 9>x.log # note", "echo a 1>x.log", "echo a 0<go.mod"} {
		wantAllowed(t, line, shCheck(t, line))
	}
	for ch := byte(0); ch < 0x80; ch++ {
		if got, want := isDigit(ch), strings.IndexByte("0123456789", ch) >= 0; got != want {
			t.Errorf("isDigit(%q) = %v", ch, got)
		}
	}
}

// Non-ASCII text is refused under a locale that is neither C nor UTF-8,
// named by LC_ALL, else LC_CTYPE, else LANG (the first one set wins);
// ASCII text runs under any locale.
func TestMultibyteLocalePrecedence(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		line    string
		refused bool
	}{
		{map[string]string{"LANG": "zh_TW.Big5"}, "echo día", true},
		{map[string]string{"LC_CTYPE": "zh_TW.Big5"}, "echo día", true},
		{map[string]string{"LC_ALL": "zh_TW.Big5"}, "echo día", true},
		{map[string]string{"LC_ALL": "zh_TW.Big5", "LC_CTYPE": "C.UTF-8", "LANG": "C.UTF-8"}, "echo día", true},
		{map[string]string{"LC_CTYPE": "zh_TW.Big5", "LANG": "C.UTF-8"}, "echo día", true},
		{map[string]string{"LC_ALL": "C.UTF-8", "LC_CTYPE": "zh_TW.Big5", "LANG": "zh_TW.Big5"}, "echo día", false},
		{map[string]string{"LC_CTYPE": "en_US.utf8", "LANG": "zh_TW.Big5"}, "echo día", false},
		{map[string]string{"LANG": "zh_TW.Big5", "TERM": "xterm"}, "echo dia", false},
		{map[string]string{"LC_ALL": "zh_TW.Big5"}, "echo dia", false},
		{map[string]string{"TERM": "zh_TW.Big5"}, "echo día", false},
	} {
		v := run(t, tcase{sh: true, line: tc.line, setup: func(s *workspace.Settings) {
			s.Commands.InheritEnv, s.Commands.Env = nil, tc.env
		}})
		if tc.refused {
			wantRefused(t, fmt.Sprint(tc.env, " ", tc.line), v, UnsupportedSyntax, "non-ASCII text under the locale zh_TW.Big5")
		} else {
			wantAllowed(t, fmt.Sprint(tc.env, " ", tc.line), v)
		}
	}
}

// A backtick substitution at the very start or end of the line is read
// from the line's text like any other.
func TestBacktickSubstitutionAtLineEdges(t *testing.T) {
	for _, line := range []string{"`echo \\`ls\\``", "`ls '`'` x", "echo `echo \\`ls\\``", "echo `ls '`'`"} {
		wantRefused(t, line, shCheck(t, line), UnsupportedSyntax, "backtick substitution")
	}
}

// Leaving a substitution ends it: a comment or a here-document after
// $( ) on the same line is at the top level.
func TestSubstitutionEndsWhereItCloses(t *testing.T) {
	for _, line := range []string{
		"echo $(ls) # note",
		"echo $(echo $(ls)) x # note",
		"echo $(ls); cat <<E\nx\nE",
		"echo `ls`; cat <<E\nx\nE",
	} {
		wantAllowed(t, line, run(t, tcase{sh: true, line: line, setup: noArgRules}))
	}
	line := "echo $(ls # c\n)"
	wantRefused(t, line, run(t, tcase{sh: true, line: line, setup: noArgRules}), UnsupportedSyntax, "comment inside a substitution")
}

// A here-document body is text, not words: look-alike punctuation in it
// is not refused (it is refused in the command's own words).
func TestHereDocBodyIsNotWords(t *testing.T) {
	for _, line := range []string{"cat <<E\n\u2018quoted\u2019 a\uff5cb\nE", "cat <<'E'\n\u2018quoted\u2019\nE"} {
		wantAllowed(t, line, shCheck(t, line))
	}
	wantRefused(t, "cat \u2018x\u2019", shCheck(t, "cat \u2018x\u2019"), UnsupportedSyntax, "looks like shell punctuation")
}

// Empty here-document bodies: the delimiter right on the next line, and a
// second here-document's body right after the first one's delimiter.
func TestEmptyHereDocBodies(t *testing.T) {
	for _, tc := range []struct{ line, canonical string }{
		{"cat <<A\nA", "cat << A\nA"},
		{"cat <<A\nA\necho x", "cat << A\nA\necho x"},
		{"cat <<A <<B\nA\nb\nB", "cat << A << B\nA\nb\nB"},
		{"cat <<A <<B\nA\nB\necho x", "cat << A << B\nA\nB\necho x"},
		{"cat <<'A' <<B\nA\nb\nB", "cat << 'A' << B\nA\nb\nB"},
	} {
		v := shCheck(t, tc.line)
		wantAllowed(t, tc.line, v)
		if v.Canonical != tc.canonical {
			t.Errorf("%q: canonical %q, want %q", tc.line, v.Canonical, tc.canonical)
		}
	}
}

// Here-document delimiters are plain names: letters of either case and _
// anywhere, digits after the first character, bare or quoted; anything
// else (a leading digit, punctuation) is refused.
func TestHereDocDelimiterNames(t *testing.T) {
	for _, name := range []string{"A", "Z", "a", "z", "_", "E0", "E9", "_9", "abcxyz", "ABCXYZ", "a_Z_0"} {
		for _, form := range []string{"%s", "'%s'", `"%s"`, `\%s`} {
			line := "cat <<" + fmt.Sprintf(form, name) + "\nbody\n" + name
			wantAllowed(t, line, shCheck(t, line))
		}
	}
	for _, name := range []string{"0E", "9E", "1", "E:", "E@", "E[", "E`", "E{", "E/", "E-", "E."} {
		line := "cat <<'" + name + "'\nbody\n" + name
		wantRefused(t, line, shCheck(t, line), UnsupportedSyntax, "delimiter")
	}
	for _, r := range []rune{'@', '[', '`', '{', '/', ':'} {
		if _, _, ok := heredocDelimiter(litWord(t, "E"+string(r))); ok {
			t.Errorf("delimiter E%c accepted", r)
		}
	}
	if _, _, ok := heredocDelimiter(litWord(t, "9E")); ok {
		t.Errorf("delimiter 9E accepted")
	}
}

// litWord is the delimiter word 'TEXT'.
func litWord(t *testing.T, text string) *syntax.Word {
	t.Helper()
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: text}}}
}

// set with options: -o needs a known option name after it; bare set
// (which prints every variable) is refused.
func TestSetOptionArguments(t *testing.T) {
	setup := func(s *workspace.Settings) {
		noArgRules(s)
		s.Commands.Allow = append(s.Commands.Allow, "set")
	}
	for _, line := range []string{"set -o pipefail; go test", "set -e -o pipefail; go test", "set +o errexit -x"} {
		wantAllowed(t, line, run(t, tcase{sh: true, line: line, setup: setup}))
	}
	for _, line := range []string{"set", "set -o", "set -e -o", "set -o posix", "set -o $X"} {
		wantRefused(t, line, run(t, tcase{sh: true, line: line, setup: setup}), UnsupportedSyntax, "shell builtin set")
	}
}

// A comment at the very start of a line is read like any other.
func TestCommentAtLineStart(t *testing.T) {
	wantRefused(t, "#x \\\necho hidden", shCheck(t, "#x \\\necho hidden"), UnsupportedSyntax, "comment ending in a backslash")
	v := shCheck(t, "# run the tests\ngo test")
	wantAllowed(t, "# run the tests\ngo test", v)
	if v.Canonical != "go test" {
		t.Errorf("canonical %q, want the comment dropped", v.Canonical)
	}
}

// A line bash and POSIX sh both parse but read differently is refused.
func TestBashAndPOSIXReadDifferently(t *testing.T) {
	wantRefused(t, "((x))", shCheck(t, "((x))"), UnsupportedSyntax, "bash and POSIX sh read it differently")
}

// Line continuations in a line with a here-document are found wherever
// they are: after a blank line, at the start, after leading backslashes.
func TestContinuationAnywhere(t *testing.T) {
	for _, line := range []string{
		"\ncat <<E\nab\\\nE\necho hidden\nE",
		"\\\ncat <<E\nx\nE",
		"cat <<E\n\n\nab\\\nE\necho hidden\nE",
	} {
		wantRefused(t, line, shCheck(t, line), UnsupportedSyntax, "line continuation")
	}
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"\na\\\nb", true}, {"\\\n", true}, {"\\\\\n", false}, {"\\\\\\\n", true},
		{"a\n\nb\\\nc", true}, {"a\n\n\nb", false}, {"\n\n", false}, {"", false},
	} {
		if got := continues(tc.s); got != tc.want {
			t.Errorf("continues(%q) = %v", tc.s, got)
		}
	}
}

// A $'…' word is refused, and the refusal shows the characters bash would
// read, so they can be written in plain quotes: \x takes at most two hex
// digits (of either case), stops at the first other byte, and is kept as
// text when none follows.
func TestANSICQuotingShowsItsCharacters(t *testing.T) {
	for body, want := range map[string]string{
		`\x41`:                              "A",
		`\x414`:                             "A4",
		`\x41b`:                             "Ab",
		`\x4`:                               "\x04",
		`\x4g`:                              "\x04g",
		`\xg`:                               `\xg`,
		`\x`:                                `\x`,
		`\x09\x0a\x0f\x0F\x0A`:              "\t\n\x0f\x0f\n",
		`\x0/\x9:\xaG\xA@\xF` + "`" + `\xf`: "\x00/\t:\nG\n@\x0f`\x0f",
		`a\nb\t\e[2K`:                       "a\nb\t\x1b[2K",
	} {
		line := "echo $'" + body + "'"
		v := shCheck(t, line)
		wantRefused(t, line, v, UnsupportedSyntax, "bash reads $'"+body+"' as "+strconv.Quote(want))
	}
}

// A quoted glob character in a glob word is literal: cat '*'n* names files
// starting with "*n" (none here), not .env; unquoted, the same word reaches
// the denied file. (Argument rules are off: a glob is otherwise refused
// before its matches are read.)
func TestQuotedGlobCharacterIsLiteral(t *testing.T) {
	globs := func(line string) Verdict { return run(t, tcase{sh: true, line: line, setup: noArgRules}) }
	for _, line := range []string{`cat '*'n*`, `cat "*"n*`, `cat '?'env*`, `cat "?"env*`} {
		wantAllowed(t, line, globs(line))
	}
	for _, line := range []string{`cat *n*`, `cat ?env*`} {
		wantRefused(t, line, globs(line), PathEscape, ".env")
	}
}
