// Light and dark themes: the system's preference until the user picks one with the toggle (kept in
// localStorage: a display preference, not a secret).
const KEY = 'yrden.theme';
const listeners = new Set();
const media = window.matchMedia('(prefers-color-scheme: dark)');

export function currentTheme() {
  return localStorage.getItem(KEY) || (media.matches ? 'dark' : 'light');
}

export function onThemeChange(listener) {
  listeners.add(listener);
}

function apply() {
  const theme = currentTheme();
  document.documentElement.dataset.theme = theme;
  const toggle = document.getElementById('theme-toggle');
  toggle.setAttribute('aria-pressed', String(theme === 'dark'));
  for (const listener of listeners) listener(theme);
}

export function initTheme() {
  document.getElementById('theme-toggle').addEventListener('click', () => {
    localStorage.setItem(KEY, currentTheme() === 'dark' ? 'light' : 'dark');
    apply();
  });
  media.addEventListener('change', apply);
  apply();
}
