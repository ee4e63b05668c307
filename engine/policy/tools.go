package policy

import (
	"slices"
	"strings"
)

// legacyRule is aw itself, whose human verbs are read by position
// rather than by an option table (cobra strips flags it does not know).
func legacyRule(exe string) func(c *checker, exe string, args []word, depth int) {
	if exe == "aw" {
		return awRule
	}
	return nil
}

// deniedArg refuses a built-in argv trick.
func (c *checker) deniedArg(exe, arg, why string) {
	c.refuse(DeniedPattern, exe, "", "`%s %s` is refused by aw's built-in rules: %s", exe, arg, why)
}

// unreadable refuses a wrapper option the policy cannot follow.
func (c *checker) unreadable(exe, arg string) {
	c.refuse(NestedCommand, exe, "", "%s with the option %s runs a command the policy cannot read; run the inner command directly", exe, arg)
}

func isAssignment(s string) (string, bool) {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return "", false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return "", false
		}
	}
	return name, true
}

// gitSafeConfig are the -c keys that only change presentation or identity.
var gitSafeConfig = []string{"user.name", "user.email", "color.", "core.quotepath", "init.defaultbranch", "advice.",
	"commit.gpgsign", "tag.gpgsign", "log.", "format.pretty", "diff.noprefix", "diff.renames", "merge.conflictstyle",
	"pull.rebase", "pull.ff", "push.default", "status.", "core.abbrev"}

func gitConfigSafe(kv string) bool {
	key, _, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	for _, s := range gitSafeConfig {
		s = strings.ToLower(s)
		if key == s || strings.HasSuffix(s, ".") && strings.HasPrefix(key, s) {
			return true
		}
	}
	return false
}

// sedDanger reads a sed script far enough to find e, w, W and the e/w
// flags of s (refused), and the files r and R read (checked by the
// caller); a script it cannot follow is refused. Where a regular
// expression ends depends on how a sed reads bracket expressions ([/] does
// not end s/[/]/x/ in GNU sed, and sed versions differ on a backslash
// inside brackets), so the script is read every way a sed may read it, and
// what any reading finds counts.
func sedDanger(s string) (why string, reads []string) {
	for _, brackets := range []sedBrackets{bracketsPlain, bracketsLiteral, bracketsEscaped} {
		w, r := sedRead(s, brackets)
		if w != "" {
			return w, nil
		}
		reads = append(reads, r...)
	}
	return "", reads
}

// sedBrackets is one way of reading [ ] inside a sed regular expression.
type sedBrackets uint8

const (
	bracketsPlain   sedBrackets = iota // [ is an ordinary character
	bracketsLiteral                    // [ … ] holds the delimiter, a backslash in it is literal (POSIX)
	bracketsEscaped                    // [ … ] holds the delimiter, a backslash in it escapes the next character
)

// sedRegexEnd returns the index of the delimiter d that ends the regular
// expression starting at i (len(s) when none does).
func sedRegexEnd(s string, i int, d byte, b sedBrackets) int {
	for i < len(s) && s[i] != d {
		switch {
		case s[i] == '\\':
			i += 2
			continue
		case s[i] == '[' && b != bracketsPlain:
			j := i + 1
			if j < len(s) && s[j] == '^' {
				j++
			}
			if j < len(s) && s[j] == ']' {
				j++
			}
			for j < len(s) && s[j] != ']' {
				switch {
				case s[j] == '[' && j+1 < len(s) && (s[j+1] == ':' || s[j+1] == '.' || s[j+1] == '='):
					if k := strings.Index(s[j+2:], string(s[j+1])+"]"); k >= 0 {
						j += k + 4
						continue
					}
				case s[j] == '\\' && b == bracketsEscaped:
					j++
				}
				j++
			}
			i = j + 1
			continue
		}
		i++
	}
	return min(i, len(s))
}

func sedRead(s string, brackets sedBrackets) (why string, reads []string) {
	i := 0
	skipAddr := func() {
		for i < len(s) {
			ch := s[i]
			switch {
			case ch >= '0' && ch <= '9' || ch == '$' || ch == ',' || ch == '!' || ch == '~' || ch == '+' || ch == ' ' || ch == '\t':
				i++
			case ch == '/' || ch == '\\':
				d := byte('/')
				if ch == '\\' && i+1 < len(s) {
					i++
					d = s[i]
				}
				i = sedRegexEnd(s, i+1, d, brackets) + 1
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			default:
				return
			}
		}
	}
	toEOL := func() {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	for i < len(s) {
		ch := s[i]
		if ch == ';' || ch == '\n' || ch == ' ' || ch == '\t' || ch == '{' || ch == '}' {
			i++
			continue
		}
		skipAddr()
		if i >= len(s) {
			return "", reads
		}
		cmd := s[i]
		i++
		switch cmd {
		case 'e':
			return "the sed command e runs a shell command", nil
		case 'w', 'W':
			return "the sed command " + string(cmd) + " writes a file the policy does not check", nil
		case 's', 'y':
			if i >= len(s) {
				return "the sed script cannot be read", nil
			}
			d := s[i]
			if d == '\n' || d == '\\' {
				return "the sed script cannot be read", nil
			}
			i++
			for part := 0; part < 2; part++ {
				b := brackets
				if part == 1 || cmd == 'y' {
					b = bracketsPlain // a replacement and y's lists hold no brackets
				}
				i = sedRegexEnd(s, i, d, b)
				if i >= len(s) {
					return "the sed script cannot be read", nil
				}
				i++
			}
			if cmd == 'y' {
				continue
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				switch s[i] {
				case 'e':
					return "the s///e flag runs the pattern space as a shell command", nil
				case 'w':
					return "the s///w flag writes a file the policy does not check", nil
				}
				i++
			}
		case 'r', 'R':
			j := i
			toEOL()
			reads = append(reads, strings.TrimSpace(s[j:i]))
		case 'a', 'i', 'c', ':', 'b', 't', 'T', 'v', 'l', 'L', 'q', 'Q':
			toEOLorSemi := cmd == 'b' || cmd == 't' || cmd == 'T' || cmd == 'v' || cmd == 'l' || cmd == 'q' || cmd == 'Q' || cmd == 'L'
			if toEOLorSemi {
				for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
					i++
				}
			} else {
				toEOL()
			}
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F':
		case '#':
			toEOL()
		default:
			return "the sed script cannot be read with confidence", nil
		}
	}
	return "", reads
}

// packageCommand turns "@scope/name@1.2" into "name".
func packageCommand(p string) string {
	if strings.HasPrefix(p, "@") {
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[j+1:]
		}
	}
	if j := strings.IndexByte(p, '@'); j > 0 {
		p = p[:j]
	}
	return p
}

func hasWord(args []word, s string) bool {
	for _, a := range args {
		if a.text == s {
			return true
		}
	}
	return false
}

// awRule refuses aw's own human verbs inside a command.
func awRule(c *checker, exe string, args []word, depth int) {
	// cobra accepts flags anywhere and strips a flag's value without
	// knowing the flag ("aw --input x approval accept", "aw approval -o
	// json accept"), so positions are not trusted: among the first three
	// non-flag words (the noun, after at most two stripped values), a
	// human noun followed anywhere later by its human verb is refused.
	var pos []string
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") || a.text == "-" {
			pos = append(pos, a.text)
		}
	}
	for j := 0; j < len(pos) && j < 3; j++ {
		verbs, human := humanVerbs[pos[j]]
		if !human {
			continue
		}
		verb := ""
		for _, w := range pos[j+1:] {
			if slices.Contains(verbs, w) {
				verb = " " + w
				break
			}
		}
		if len(verbs) > 0 && verb == "" {
			continue // a noun with human verbs, used for another verb
		}
		c.refuse(DeniedPattern, exe, "", "`aw %s%s` is a human verb: it never runs inside a command, however it is wrapped; ask the human to run it in their own terminal", pos[j], verb)
		return
	}
}

// humanVerbs are aw's human verbs by noun: a noun with no verbs is human
// whatever follows (prompt, gc, answer); call is human when it names a
// tool whose actions include human ones.
var humanVerbs = map[string][]string{
	"prompt":   nil,
	"gc":       nil,
	"answer":   nil,
	"approval": {"accept", "deny", "token"},
	"config":   {"set"},
	"serve":    {"token"},
	"call":     {"approval", "config", "prompt", "store", "gc", "answer", "ask"},
}

// awkPrintRedirect reports whether a print or printf statement in the
// program may send its output to a file (print … > file). Where the
// statement ends is only trusted when nothing before that ; or } could
// hide it: a string, a regular expression or a backslash makes the rest of
// the line (and a line it continues) part of the statement.
func awkPrintRedirect(p string) bool {
	p = strings.ReplaceAll(p, "\\\n", " ")
	for i := 0; ; {
		k := strings.Index(p[i:], "print")
		if k < 0 {
			return false
		}
		i += k + len("print")
		seg := p[i:]
		// the statement runs to the end of its line, and on while a line
		// ends where awk reads on (, { && || ?).
		end := 0
		for {
			nl := strings.IndexByte(seg[end:], '\n')
			if nl < 0 {
				end = len(seg)
				break
			}
			line := strings.TrimRight(seg[end:end+nl], " \t")
			end += nl + 1
			if line == "" || !strings.ContainsAny(line[len(line)-1:], ",{&|?:") {
				break
			}
		}
		seg = seg[:end]
		if !strings.Contains(seg, ">") {
			continue
		}
		stop := strings.IndexAny(seg, ";}")
		if stop < 0 || strings.ContainsAny(seg[:stop], ">\"/\\") {
			return true
		}
	}
}
