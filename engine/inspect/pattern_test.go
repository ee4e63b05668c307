package inspect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestLeadClasses(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		n       int // classes in the lead
	}{
		{"[0-9]{3}[a-f]{4}[0-9]{3}", 8},
		{"[0-9]+[a-f]", 1},
		{`\b[A-Z][a-z]`, 2},
		{"(?i)[a-c][0-9]", 2},
		{"(?i)sb", 0},          // s folds to U+017F
		{`\A[0-9]`, 0},         // text anchors end the lead
		{"a|b", 1},             // one class [ab]
		{"ab|cd", 0},           // no alternation
		{"[^a]b", 0},           // non-ASCII ranges
		{"x*[0-9]", 0},         // varying length first
		{"é[0-9]", 0},          // non-ASCII literal
		{"([a-b][0-9]){2}", 4}, // captures and repeats
	} {
		m, err := compileMatcher(tc.pattern, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.lead) != tc.n {
			t.Errorf("%q: lead of %d classes, want %d", tc.pattern, len(m.lead), tc.n)
		}
	}
}

// The lead only skips to candidate lines: every pattern must find the lines
// and columns that a plain regexp over each line finds.
func TestSearchWithLeadMatchesEveryLine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "0123456789abcdefABCDEF xyz_-\t"
	var lines []string
	for range 3000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		lines = append(lines, b.String())
	}
	ws := openWS(t, map[string]string{"f.txt": strings.Join(lines, "\n") + "\n"})
	ws.Settings.MaxToolResultChars = 1 << 30 // every match inline
	for _, pat := range []string{"[0-9]{2}[a-f]{2}", `\b[A-F][0-9]`, "(?i)[a-f]{2}[0-9]", "^[0-9]+ ", "[0-9]$", "[x-z]_[0-9]"} {
		env, err := Search(context.Background(), ws, &SearchRequest{Pattern: pat, MaxResults: 100000})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, m := range env.Data.(*SearchData).Matches {
			got[fmt.Sprintf("%d:%d", m.Line, m.Column)] = true
		}
		re := regexp.MustCompile("(?m)" + pat)
		want := 0
		for i, l := range lines {
			if loc := re.FindStringIndex(l); loc != nil {
				want++
				if k := fmt.Sprintf("%d:%d", i+1, loc[0]+1); !got[k] {
					t.Errorf("%q: line:column %s not found", pat, k)
				}
			}
		}
		if len(got) != want {
			t.Errorf("%q: %d matches, want %d", pat, len(got), want)
		}
	}
}
