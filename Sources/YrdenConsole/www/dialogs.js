// Modal dialogs built on <dialog>: showModal() traps focus and Escape closes; focus returns to
// whatever had it before.
import { storeToken } from './api.js';

function openModal(dialog, focusTarget) {
  const before = document.activeElement;
  dialog.showModal();
  focusTarget?.focus();
  dialog.addEventListener('close', () => before?.focus?.(), { once: true });
}

/** Asks for the admin token; resolves true once one is stored (the dialog cannot be dismissed empty). */
export function askForToken(reason) {
  const dialog = document.getElementById('token-dialog');
  const input = document.getElementById('token-input');
  const error = document.getElementById('token-error');
  if (dialog.open) return dialog.pending;
  error.hidden = !reason;
  error.textContent = reason || '';
  input.value = '';
  dialog.pending = new Promise((resolve) => {
    const cancel = (event) => event.preventDefault(); // Escape: nothing works without a token
    dialog.addEventListener('cancel', cancel);
    dialog.addEventListener(
      'close',
      () => {
        dialog.removeEventListener('cancel', cancel);
        storeToken(input.value.trim());
        input.value = '';
        resolve(true);
      },
      { once: true },
    );
  });
  openModal(dialog, input);
  return dialog.pending;
}

/** Resolves true when the user confirms. `detail` is shown as text. */
export function confirmAction(title, detail, okLabel = 'OK') {
  const dialog = document.getElementById('confirm-dialog');
  if (dialog.open) return Promise.resolve(false); // one question at a time: a second asker is declined
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-detail').textContent = detail;
  const ok = document.getElementById('confirm-ok');
  ok.textContent = okLabel;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    openModal(dialog, dialog.querySelector('button[value="cancel"]'));
  });
}

export { openModal };
