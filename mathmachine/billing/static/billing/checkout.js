// Razorpay Standard Checkout. The server created the order; this opens Razorpay's modal and
// posts what it returns (payment id, order id, signature) to our callback, which verifies the
// signature against the order id stored on the server. The webhooks grant access too, so a
// closed tab after paying still ends with access.
const box = document.getElementById("razorpay-checkout");
const button = document.getElementById("razorpay-pay");
const status = document.getElementById("razorpay-status");
const form = document.getElementById("razorpay-callback");

function open() {
  const d = box.dataset;
  const rzp = new window.Razorpay({
    key: d.key,
    amount: d.amount,
    currency: d.currency,
    order_id: d.orderId,
    name: d.name,
    description: d.description,
    prefill: { email: d.email },
    handler(response) {
      form.elements.razorpay_order_id.value = response.razorpay_order_id;
      form.elements.razorpay_payment_id.value = response.razorpay_payment_id;
      form.elements.razorpay_signature.value = response.razorpay_signature;
      status.textContent = "Payment received. Confirming…";
      form.submit();
    },
    modal: {
      ondismiss() {
        status.textContent = "Checkout closed. You have not been charged.";
        button.disabled = false;
      },
    },
  });
  rzp.on("payment.failed", (response) => {
    status.textContent = `The payment failed: ${response.error.description}. You can try again.`;
    button.disabled = false;
  });
  button.disabled = true;
  rzp.open();
}

function ready() {
  if (typeof window.Razorpay !== "function") {
    status.textContent = "Razorpay's checkout could not load. Check your connection and reload.";
    return;
  }
  button.disabled = false;
  button.addEventListener("click", open);
}

if (box) {
  if (document.readyState === "complete") ready();
  else window.addEventListener("load", ready);
}
