// Test-mode checkout: post the signed payment back to the site, as Razorpay's checkout does.
// Without JavaScript the form's own "Continue" button does the same.
const form = document.querySelector("form[data-autosubmit]");
if (form) form.requestSubmit();
