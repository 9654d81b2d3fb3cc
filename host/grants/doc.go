// Package grants lets the user decide, per web origin, which capabilities the
// chat bridge may run, and answers the "ask each time" question.
//
// It serves three host methods: policy.get (what an origin may run now),
// policy.set (the user's choice for one origin, written atomically into the
// config file and in force at once) and approve (the user's answer to an
// approval event). The extension calls policy.set only from its own pages;
// the host cannot tell its pages from its content scripts, so that check is
// the extension's (see extension/shared/core/router.js).
package grants
