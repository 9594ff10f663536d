// The console's entry point: settings, the admin token, the three views, and the live event stream.
import { onTokenNeeded, storedToken } from './api.js';
import { AppHost } from './app-host.js';
import { askForToken } from './dialogs.js';
import { followEvents } from './events.js';
import { ExploreView } from './explore-view.js';
import { McpClient } from './mcp-client.js';
import { MetricsView } from './metrics-view.js';
import { ServersView } from './servers-view.js';
import { initTheme } from './theme.js';

async function main() {
  initTheme();
  const settings = await (await fetch('/console/settings.json', { cache: 'no-store' })).json();
  settings.toolSeparator ||= '__';
  onTokenNeeded(askForToken);
  if (settings.adminTokenRequired && !storedToken()) await askForToken();

  const client = new McpClient('/mcp');
  const appHost = new AppHost({
    settings,
    list: document.getElementById('app-list'),
    empty: document.getElementById('apps-empty'),
  });
  const metrics = new MetricsView();
  const explore = new ExploreView({ client, appHost, settings });
  const serversView = new ServersView({
    onChange: (views) => {
      explore.setServers(views);
      metrics.setServers(views);
    },
  });
  setUpTabs((name) => metrics.show(name === 'metrics'));

  const status = document.getElementById('live-status');
  followEvents({
    onOpen: () => serversView.reload(),
    onEvent: (name, data) => {
      serversView.handleEvent(name, data);
      explore.handleEvent(name, data);
    },
    onStatus: (state) => {
      status.textContent = state === 'live' ? 'Live' : 'Reconnecting…';
      status.dataset.state = state;
    },
  });
}

// Sections as tabs: the choice is kept in the URL hash, so reload and history keep it.
function setUpTabs(onShow) {
  const tabs = [...document.querySelectorAll('.tab')];
  const show = () => {
    const name = tabs.some((t) => t.dataset.view === location.hash.slice(1)) ? location.hash.slice(1) : 'servers';
    for (const tab of tabs) {
      const active = tab.dataset.view === name;
      if (active) tab.setAttribute('aria-current', 'page');
      else tab.removeAttribute('aria-current');
      document.getElementById(`view-${tab.dataset.view}`).hidden = !active;
    }
    onShow(name);
  };
  for (const tab of tabs) {
    tab.addEventListener('click', () => {
      location.hash = tab.dataset.view;
    });
  }
  window.addEventListener('hashchange', show);
  show();
}

main().catch((error) => {
  document.getElementById('live-status').textContent = `The console could not start: ${error.message}`;
});
