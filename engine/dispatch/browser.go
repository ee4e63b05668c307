package dispatch

import (
	"github.com/agentic-workspace/aw/engine/browser"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Browser sessions start processes and reach the network: the exec tier
// for every action. open with a URL and control are gated (kind "browser":
// web egress, like research fetch); open without a URL, read, list and
// close are not.
func browserActions() []*Action {
	return []*Action{
		Bind(Browser, "open", workspace.TierExec, "browser", "Start a headless Chromium session, optionally at a URL (gated as browser when given one)", browser.Open).Does(Writes | Network),
		Bind(Browser, "read", workspace.TierExec, "", "The page's URL, title, visible text and links (bounded; the whole text as an artifact)", browser.Read).Does(Network),
		Bind(Browser, "control", workspace.TierExec, "browser", "Drive the page: navigate, click, click_text, type, press, wait, scroll, back, reload, evaluate", browser.Control).Does(Writes | Destroys | Network),
		Bind(Browser, "list", workspace.TierExec, "", "List sessions, live and dead, checked now", browser.List),
		Bind(Browser, "close", workspace.TierExec, "", "End a session's Chromium and remove its profile", browser.Close).Does(Writes | Destroys | Idempotent),
	}
}
