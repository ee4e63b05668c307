package policy

import (
	"regexp"
	"slices"
	"strings"
	"sync"
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
// caller); a script it cannot follow is refused.
func sedDanger(s string) (why string, reads []string) {
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
				i++
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				i++
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
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
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
	"call":     {"approval", "config", "prompt", "store", "gc", "answer"},
}

var awkWrite = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`print[f]?[^;{}]*>`) })
