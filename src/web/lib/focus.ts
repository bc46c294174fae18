/**
 * For a Radix dialog opened without its trigger (onCloseAutoFocus): focus goes back to what
 * `target` names, when it is still on the page, instead of wherever Radix would put it.
 */
export function focusOnClose(target: (() => HTMLElement | null | undefined) | undefined) {
  return (event: Event) => {
    const element = target?.();
    if (element?.isConnected) {
      event.preventDefault();
      element.focus();
    }
  };
}
