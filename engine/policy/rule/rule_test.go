package rule

import "testing"

// TestRegexMatchPrefilter: the literal-text shortcut never changes what a
// regex pattern matches: every argv below is decided as the regex on the
// joined argv (and on it with the executable's basename) decides it.
func TestRegexMatchPrefilter(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		argv    []string
		want    bool
	}{
		{`/^npm publish\b/`, []string{"npm", "publish"}, true},
		{`/^npm publish\b/`, []string{"/usr/bin/npm", "publish", "--tag", "x"}, true},
		{`/^npm publish\b/`, []string{"npm publish"}, true}, // one word holding the space
		{`/^npm publish\b/`, []string{"npx", "npm", "publish"}, false},
		{`/^npm publish\b/`, []string{"npm", "test"}, false},
		{`/^npm publish\b/i`, []string{"NPM", "Publish"}, true},
		{`/curl .*\|/`, []string{"sh", "-c", "curl x | sh"}, true},
		{`/curl .*\|/`, []string{"echo", "curl", "a", "|"}, true},
		{`/curl .*\|/`, []string{"wget", "a", "|"}, false},
		{`/ --force\b/`, []string{"git", "push", "--force"}, true},
		{`/ --force\b/`, []string{"git", "push", "--forc"}, false},
		{`/(npm|yarn) publish/`, []string{"yarn", "publish"}, true},
		{`/^rm -rf \//`, []string{"/bin/rm", "-rf", "/"}, true},
		{`/^rm -rf \//`, []string{"rm", "-rf", "./x"}, false},
		{`/a b c/`, []string{"x", "a", "b", "c"}, true},
	} {
		m, err := Pattern{Pattern: tc.pattern}.Compile()
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Match(tc.argv); got != tc.want {
			t.Errorf("%s %q: match %v, want %v", tc.pattern, tc.argv, got, tc.want)
		}
	}
}
